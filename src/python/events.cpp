// The accountant's events from Python: noiselearn.account_events (a list of dicts, parsed by the same parser as the
// CLI's events files, release_events.hpp), noiselearn.mechanisms (the registry), and DP-SGD's questions
// (accounting/dp_sgd.hpp): dp_sgd_epsilon, dp_sgd_epsilons, calibrate_noise_multiplier, max_steps. Every epsilon is a
// certified (lower, upper) pair; bad input is a ValueError naming the culprit. Every keyword's default is the library's
// (AccountantOptions, CalibrationOptions, MaxStepsOptions, ReleaseDescription), read from its struct.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include "accounting/dp_sgd.hpp"
#include "accounting/mechanism_pair.hpp"
#include "accounting/release_events.hpp"
#include "core/errors.hpp"
#include "io/table_files.hpp"
#include "python/bindings.hpp"
#include "python/bounds.hpp"

namespace py = pybind11;

namespace noiselearn::python {

namespace {

std::string type_name(const py::handle& value) {
  return py::str(py::type::of(value).attr("__name__")).cast<std::string>();
}

// A dict value as the text the parser reads: numbers exactly (repr of a float round-trips), strings as they are.
std::string field_text(const py::handle& value, const std::string& key, const std::string& where) {
  if (py::isinstance<py::bool_>(value))
    throw InputError(fmt::format("{}: {} must be a number or a string (got a bool)", where, key));
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::isinstance<py::int_>(value)) return py::str(value).cast<std::string>();
  if (py::isinstance<py::float_>(value) || py::hasattr(value, "__float__"))
    return py::repr(py::float_(py::reinterpret_borrow<py::object>(value))).cast<std::string>();
  throw InputError(fmt::format("{}: {} must be a number or a string (got {})", where, key, type_name(value)));
}

ReleaseDescription description_of(const py::object& events, const std::string& relation) {
  ReleaseDescription description;
  description.relation = parse_record_relation(relation);
  if (py::isinstance<py::dict>(events))
    throw InputError("events must be a list of dicts (one per event), not one dict: wrap it in [ ]");
  if (!py::isinstance<py::sequence>(events) || py::isinstance<py::str>(events))
    throw InputError(fmt::format("events must be a list of dicts (got {})", type_name(events)));
  size_t index = 0;
  for (const py::handle item : events) {
    const std::string where = fmt::format("event {}", ++index);
    if (!py::isinstance<py::dict>(item))
      throw InputError(fmt::format("{}: must be a dict (got {})", where, type_name(item)));
    EventFields fields;
    for (const auto& [key, value] : item.cast<py::dict>()) {
      if (!py::isinstance<py::str>(key)) throw InputError(fmt::format("{}: keys must be strings", where));
      const std::string name = key.cast<std::string>();
      fields.emplace_back(name, field_text(value, name, where));
    }
    description.events.push_back(parse_release_event(fields, where, table_file_reader()));
  }
  description.validate();
  return description;
}

// A whole number argument (steps): ints and numpy integers; anything else a ValueError naming it.
int64_t whole_number(const py::object& value, const char* name, int64_t least) {
  if (py::isinstance<py::bool_>(value) || !(py::isinstance<py::int_>(value) || py::hasattr(value, "__index__")))
    throw InputError(fmt::format("{} must be a whole number (got {} {})", name, type_name(value),
                                 py::repr(value).cast<std::string>()));
  const int64_t n = py::int_(value).cast<int64_t>();
  if (n < least) throw InputError(fmt::format("{} {} must be at least {}", name, n, least));
  return n;
}

AccountantOptions options_of(double loss_step) {
  AccountantOptions options;
  options.loss_step = loss_step;
  options.validate();
  return options;
}

CalibrationOptions calibration_of(double relative_tolerance, double minimum, double maximum) {
  CalibrationOptions calibration;
  calibration.relative_tolerance = relative_tolerance;
  calibration.minimum = minimum;
  calibration.maximum = maximum;
  return calibration;
}

py::tuple bracket(const EpsilonBracket& e) { return py::make_tuple(e.lower, e.upper); }

// (value, (lower, upper)) of a calibration, run without the GIL: calibrate() returns a NoiseCalibration.
template <class Calibrate>
py::tuple calibrated(Calibrate calibrate) {
  NoiseCalibration c;
  {
    py::gil_scoped_release release;
    c = calibrate();
  }
  return py::make_tuple(c.noise_multiplier, bracket(c.epsilon));
}

}  // namespace

void bind_events(py::module_& m) {
  m.def(
      "mechanisms",
      [] {
        py::list out;
        for (const auto& kind : mechanism_kinds()) {
          py::list parameters;
          for (const auto& p : kind.parameters) {
            py::dict d;
            d["key"] = p.key;
            d["default"] = p.default_value ? py::cast(*p.default_value) : py::none();
            d["unit"] = p.unit;
            d["meaning"] = p.meaning;
            d["integer"] = p.integer;
            d["table"] = p.table;
            parameters.append(d);
          }
          py::dict k;
          k["name"] = kind.name;
          k["summary"] = kind.summary;
          k["parameters"] = parameters;
          out.append(k);
        }
        return out;
      },
      "The registered mechanisms: name, summary and parameters (key, default, unit, meaning) of each.");

  m.def(
      "account_events",
      [](const py::object& events, const std::string& relation, double loss_step) {
        const ReleaseDescription description = description_of(events, relation);
        const AccountantOptions options = options_of(loss_step);
        py::gil_scoped_release release;
        return Bounds(description, options);
      },
      py::arg("events"), py::kw_only(), py::arg("relation") = to_string(ReleaseDescription{}.relation),
      py::arg("loss_step") = AccountantOptions{}.loss_step,
      fmt::format("Certified bounds of a list of events, each a dict as in an events file: mechanism ('gaussian', "
                  "'laplace', 'discrete_gaussian', 'discrete_laplace', 'table' with a table file's path; see "
                  "mechanisms()) and its parameters, coordinates (d coordinates with their own noise, L-infinity "
                  "neighbours; default {}), sampling ('none', 'poisson' with sampling_rate, 'without_replacement' with "
                  "batch_size and dataset_size, 'random_allocation' with steps_per_epoch; left out, the keys decide) "
                  "and count (releases, default {}). relation: "
                  "'add_remove' (Poisson) or 'replace_one' (without replacement). Returns Bounds: .epsilon(delta) and "
                  ".delta(epsilon) give (lower, upper).",
                  ReleaseEvent{}.coordinates, ReleaseEvent{}.count)
          .c_str());

  m.def(
      "validate_events",
      [](const py::object& events, const std::string& relation) { description_of(events, relation); },
      py::arg("events"), py::kw_only(), py::arg("relation") = to_string(ReleaseDescription{}.relation),
      "Checks a list of events as account_events reads them (the same parser, keys and messages), composing nothing: "
      "a ValueError names the first culprit.");

  m.def(
      "dp_sgd_epsilon",
      [](double noise_multiplier, double sampling_rate, const py::object& steps, double delta, double loss_step) {
        const int64_t t = whole_number(steps, "steps", 1);
        const AccountantOptions options = options_of(loss_step);
        EpsilonBracket e;
        {
          py::gil_scoped_release release;
          e = dp_sgd_epsilon(noise_multiplier, sampling_rate, t, delta, options);
        }
        return bracket(e);
      },
      py::arg("noise_multiplier"), py::arg("sampling_rate"), py::arg("steps"), py::arg("delta"), py::kw_only(),
      py::arg("loss_step") = AccountantOptions{}.loss_step,
      "DP-SGD (Gaussian noise std = noise_multiplier x clipping norm, Poisson sampling at sampling_rate, add or remove "
      "one record): the certified (lower, upper) epsilon at delta after `steps` steps.");

  m.def(
      "dp_sgd_epsilons",
      [](double noise_multiplier, double sampling_rate, const py::object& steps, double delta, double loss_step) {
        std::vector<int64_t> counts;
        if (!py::isinstance<py::sequence>(steps) && !py::hasattr(steps, "__array__"))
          throw InputError(fmt::format("steps must be a list of whole numbers (got {})", type_name(steps)));
        for (const py::handle s : steps)
          counts.push_back(whole_number(py::reinterpret_borrow<py::object>(s), "steps", 1));
        const AccountantOptions options = options_of(loss_step);
        std::vector<EpsilonBracket> e;
        {
          py::gil_scoped_release release;
          e = dp_sgd_epsilons(noise_multiplier, sampling_rate, counts, delta, options);
        }
        py::array_t<double> out({static_cast<py::ssize_t>(e.size()), py::ssize_t{2}});
        auto view = out.mutable_unchecked<2>();
        for (size_t i = 0; i < e.size(); ++i) {
          view(static_cast<py::ssize_t>(i), 0) = e[i].lower;
          view(static_cast<py::ssize_t>(i), 1) = e[i].upper;
        }
        return out;
      },
      py::arg("noise_multiplier"), py::arg("sampling_rate"), py::arg("steps"), py::arg("delta"), py::kw_only(),
      py::arg("loss_step") = AccountantOptions{}.loss_step,
      "The certified epsilon at delta after each step count of `steps` (increasing; e.g. the end of every epoch): a "
      "numpy array of shape (len(steps), 2), columns lower and upper, each entry rigorous. Composed incrementally (one "
      "convolution per entry) at the loss step the default picks for the last count, and tilted once for the whole "
      "curve (for the last count's epsilon) rather than for each entry's query: an entry is a little wider than "
      "dp_sgd_epsilon's for its count, and the last one is intersected with dp_sgd_epsilon's.");

  py::class_<DpSgdCurve>(m, "DpSgdCurve",
                         "DP-SGD's certified epsilon at delta asked after one count of steps at a time, in increasing "
                         "order (what an accountant asked after every epoch needs): each count composed from the "
                         "previous one and the steps since, as dp_sgd_epsilons does. Each answer is rigorous; it may "
                         "be a little wider than dp_sgd_epsilon's, which composes afresh and refines for delta.")
      .def(py::init([](double noise_multiplier, double sampling_rate, double delta, double loss_step) {
             return DpSgdCurve(noise_multiplier, sampling_rate, delta, options_of(loss_step));
           }),
           py::arg("noise_multiplier"), py::arg("sampling_rate"), py::arg("delta"), py::kw_only(),
           py::arg("loss_step") = AccountantOptions{}.loss_step)
      .def(
          "epsilon_after",
          [](DpSgdCurve& curve, const py::object& steps) {
            const int64_t n = whole_number(steps, "steps", 1);
            EpsilonBracket e;
            {
              py::gil_scoped_release release;
              e = curve.epsilon_after(n);
            }
            return py::make_tuple(e.lower, e.upper);
          },
          py::arg("steps"), "(lower, upper) after `steps` (at least the last count asked; ValueError otherwise)")
      .def_property_readonly("steps", &DpSgdCurve::steps, "the last count asked (0 before any)");

  m.def(
      "calibrate_noise_multiplier",
      [](double target_epsilon, double delta, double sampling_rate, const py::object& steps, double relative_tolerance,
         double minimum, double maximum, double loss_step) {
        const int64_t t = whole_number(steps, "steps", 1);
        const AccountantOptions options = options_of(loss_step);
        return calibrated([&] {
          return calibrate_noise_multiplier(target_epsilon, delta, sampling_rate, t, options,
                                            calibration_of(relative_tolerance, minimum, maximum));
        });
      },
      py::arg("target_epsilon"), py::arg("delta"), py::arg("sampling_rate"), py::arg("steps"), py::kw_only(),
      py::arg("relative_tolerance") = CalibrationOptions{}.relative_tolerance,
      py::arg("minimum") = CalibrationOptions{}.minimum, py::arg("maximum") = CalibrationOptions{}.maximum,
      py::arg("loss_step") = AccountantOptions{}.loss_step,
      "The least noise multiplier (to relative_tolerance, in [minimum, maximum]) whose certified upper epsilon at "
      "delta after `steps` DP-SGD steps at sampling_rate is at most target_epsilon: (noise_multiplier, (lower, "
      "upper)). "
      "ValueError when even `maximum` does not reach the target.");

  m.def(
      "calibrate_event",
      [](const py::object& event, const std::string& key, double target_epsilon, double delta,
         const std::string& relation, double relative_tolerance, double minimum, double maximum, double loss_step) {
        if (!py::isinstance<py::dict>(event))
          throw InputError(fmt::format("event must be one dict (got {})", type_name(event)));
        py::list events;
        events.append(event);
        const ReleaseDescription description = description_of(events, relation);
        const AccountantOptions options = options_of(loss_step);
        return calibrated([&] {
          return calibrate_event(description, key, target_epsilon, delta, options,
                                 calibration_of(relative_tolerance, minimum, maximum));
        });
      },
      py::arg("event"), py::arg("key"), py::arg("target_epsilon"), py::arg("delta"), py::kw_only(),
      py::arg("relation") = to_string(ReleaseDescription{}.relation),
      py::arg("relative_tolerance") = CalibrationOptions{}.relative_tolerance,
      py::arg("minimum") = CalibrationOptions{}.minimum, py::arg("maximum") = CalibrationOptions{}.maximum,
      py::arg("loss_step") = AccountantOptions{}.loss_step,
      "The least value of the event's noise parameter `key` (e.g. 'noise_multiplier' of a 'laplace' event on d "
      "coordinates, 'scale' of a 'discrete_laplace') whose certified upper epsilon at delta is at most target_epsilon "
      "(the value in the event dict is where the search starts): (value, (lower, upper)). ValueError for a key that is "
      "not a noise parameter, or when even `maximum` does not reach the target.");

  m.def(
      "max_steps",
      [](double noise_multiplier, double sampling_rate, double target_epsilon, double delta,
         const py::object& maximum_steps, double loss_step) {
        const int64_t most = whole_number(maximum_steps, "maximum_steps", 1);
        const AccountantOptions options = options_of(loss_step);
        StepsCalibration c;
        {
          py::gil_scoped_release release;
          MaxStepsOptions search;
          search.maximum_steps = most;
          c = max_steps(noise_multiplier, sampling_rate, target_epsilon, delta, options, search);
        }
        return py::make_tuple(c.steps, bracket(c.epsilon));
      },
      py::arg("noise_multiplier"), py::arg("sampling_rate"), py::arg("target_epsilon"), py::arg("delta"), py::kw_only(),
      py::arg("maximum_steps") = MaxStepsOptions{}.maximum_steps, py::arg("loss_step") = AccountantOptions{}.loss_step,
      "The most DP-SGD steps whose certified upper epsilon at delta is at most target_epsilon: (steps, (lower, "
      "upper)); "
      "steps 0 when not even one step fits.");
}

}  // namespace noiselearn::python
