// noiselearn.account / account_sequence / certify and the continuous mechanisms: the certified accountant from
// Python. Bounds.delta(eps) and Bounds.epsilon(delta) return (lower, upper), rigorous both ways, after the same
// refinement the certificates use (exponential tilting where the floating-point allowance dominates). The neighbour
// relation is explicit: 'any' (default: any adaptive sequence of query differences in [-s, s]) or 'same-direction'.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <fmt/format.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "accounting/accountant_threads.hpp"
#include "accounting/certificate.hpp"
#include "accounting/closed_forms.hpp"
#include "accounting/continuous_mechanisms.hpp"
#include "accounting/heterogeneous_composition.hpp"
#include "accounting/pair_accountant.hpp"
#include "accounting/real_fft.hpp"
#include "core/directed_format.hpp"
#include "core/dominating_pair.hpp"
#include "core/errors.hpp"
#include "io/certificate_files.hpp"
#include "io/recorded_certification.hpp"
#include "io/release_settings.hpp"
#include "io/table_files.hpp"
#include "python/bindings.hpp"
#include "python/bounds.hpp"

namespace py = pybind11;

namespace noiselearn::python {

namespace {

// A table argument: a NoiseTable, or the path of a table file (str or os.PathLike), whose noise.json records how it was
// certified (io/recorded_certification.hpp): those settings are the defaults of the keyword arguments not given.
struct TableArgument {
  NoiseTable table;
  RecordedCertification recorded;
};

TableArgument table_argument(const py::object& table, const char* what) {
  if (py::isinstance<NoiseTable>(table)) return {table.cast<NoiseTable>(), {}};
  if (py::isinstance<py::str>(table) || py::hasattr(table, "__fspath__")) {
    const std::string path = py::str(py::module_::import("os").attr("fspath")(table));
    LoadedTable loaded = read_noise_table(path);
    return {std::move(loaded.table), recorded_certification(loaded.metadata)};
  }
  throw InputError(fmt::format("{} must be a noiselearn.NoiseTable or the path of a table file (got {})", what,
                               py::str(py::type::of(table).attr("__name__")).cast<std::string>()));
}

struct Settings {
  PairSpecification pair;
  AccountantOptions accountant;
};

// The keyword arguments (named like the CLI options) through the one parser (io/release_settings.hpp): each left None
// is the table's recorded setting (a path to a noiselearn table), else the default the docstring states; neither
// given nor recorded, the sensitivity is 1.
Settings settings_of(const PairSettings& pair, const AccountantSettings& accountant,
                     const RecordedCertification& recorded) {
  return Settings{resolve_pair(pair, recorded, SettingNames::kPython, false),
                  resolve_accountant(accountant, recorded.accountant)};
}

void require_compositions(int64_t n) {
  if (n < 1 || n > kMaxCompositions)
    throw InputError(fmt::format("compositions {} must be in 1..{}", n, kMaxCompositions));
}

#define NOISELEARN_ACCOUNTING_KWARGS                                                                                  \
  py::kw_only(), py::arg("sensitivity") = py::none(), py::arg("neighbours") = py::none(),                             \
                 py::arg("shifts") = py::none(), py::arg("pair") = py::none(), py::arg("sampling_rate") = py::none(), \
                 py::arg("loss_step") = py::none(), py::arg("tail_mass") = py::none(),                                \
                 py::arg("several_pairs") = py::none(), py::arg("adaptive_budget") = py::none(),                      \
                 py::arg("adaptive_block_budget") = py::none()

#define NOISELEARN_KEYWORD_PARAMETERS                                                                          \
  std::optional<double> sensitivity, std::optional<std::string> neighbours, std::optional<std::string> shifts, \
      std::optional<std::string> pair, std::optional<double> sampling_rate, std::optional<double> loss_step,   \
      std::optional<double> tail_mass, std::optional<std::string> several_pairs,                               \
      std::optional<double> adaptive_budget, std::optional<double> adaptive_block_budget

#define NOISELEARN_KEYWORDS                                                                         \
  PairSettings{pair, sensitivity, sampling_rate, shifts, neighbours}, AccountantSettings {          \
    loss_step, tail_mass, std::nullopt, std::nullopt, std::nullopt, several_pairs, adaptive_budget, \
        adaptive_block_budget                                                                       \
  }

// A float setting as Python writes a float: format_setting's text ("1e-4"), a whole number with ".0".
std::string float_setting(double x) {
  std::string text = format_setting(x);
  if (text.find_first_of(".einf") == std::string::npos) text += ".0";
  return text;
}

// Where a keyword argument left None comes from, for the docstrings: the library's defaults, read from their structs.
std::string keyword_defaults() {
  const PairSpecification pair;
  const AccountantOptions accountant;
  return fmt::format(
      " Keyword arguments left None take the setting the table's noise.json records when `table` is a path to a table "
      "noiselearn wrote (its pair, sensitivity, sampling rate, neighbours, compositions, queries and accountant "
      "options: the certificate the run printed), else sensitivity {}, neighbours '{}', shifts '{}', pair '{}', "
      "sampling_rate {}, loss_step {}, tail_mass {}, several_pairs '{}', adaptive_budget {}, adaptive_block_budget {}.",
      float_setting(pair.sensitivity), to_string(pair.neighbours), to_string(pair.shifts), to_string(pair.kind),
      float_setting(pair.sampling_rate), float_setting(accountant.loss_step), float_setting(accountant.tail_mass),
      to_string(accountant.several_pairs), float_setting(accountant.adaptive_budget),
      float_setting(accountant.adaptive_block_budget));
}

// A continuous mechanism of one parameter (sigma, scale), composed `compositions` times at the accountant's defaults
// but for the loss step.
// `closed_form(value, sensitivity, compositions)` is the composition's closed form where it has one (closed_forms.hpp).
using ClosedFormOf = std::optional<ClosedFormBounds> (*)(double, double, int64_t);

void def_continuous_mechanism(py::module_& m, const char* name,
                              PairBounds (*bounds)(double, double, const AccountantOptions&), ClosedFormOf closed_form,
                              const char* parameter, const char* doc) {
  m.def(
      name,
      [bounds, closed_form](double value, double sensitivity, int64_t compositions, double loss_step) {
        require_compositions(compositions);
        AccountantOptions options;
        options.loss_step = loss_step;
        options.validate();
        PairBounds composed = compose_bounds(bounds(value, sensitivity, options), compositions, options);
        composed.alternatives.closed_form = closed_form(value, sensitivity, compositions);
        return Bounds(std::move(composed));
      },
      py::arg(parameter), py::kw_only(), py::arg("sensitivity") = 1.0, py::arg("compositions") = 1,
      py::arg("loss_step") = AccountantOptions{}.loss_step, doc);
}

}  // namespace

void bind_accountant(py::module_& m) {
  py::class_<Bounds>(m, "Bounds",
                     "Rigorous bounds on delta(epsilon) of a composition: delta(eps) and epsilon(delta) return "
                     "(lower, upper).")
      .def("delta", &Bounds::delta, py::arg("epsilon"), "(lower, upper) bounds on delta at epsilon")
      .def("epsilon", &Bounds::epsilon, py::arg("delta"),
           "(lower, upper) bounds on the least epsilon with delta(epsilon) <= delta")
      .def_property_readonly("description", &Bounds::description, "The pair, the neighbours covered and the method")
      .def_property_readonly("compositions", &Bounds::compositions);

  m.def(
      "account",
      [](const py::object& table_or_path, std::optional<int64_t> compositions, NOISELEARN_KEYWORD_PARAMETERS,
         const std::vector<std::pair<NoiseTable, int64_t>>& with_) {
        const TableArgument argument = table_argument(table_or_path, "table");
        const int64_t n = compositions ? *compositions : argument.recorded.compositions.value_or(1);
        require_compositions(n);
        const Settings s = settings_of(NOISELEARN_KEYWORDS, argument.recorded);
        py::gil_scoped_release release;
        if (with_.empty()) return Bounds(account(make_pair_family(argument.table, s.pair), n, s.accountant));
        // A heterogeneous sequence (the CLI's --with): every part its table and count, the pair options shared.
        std::vector<std::pair<PairFamily, int64_t>> parts{{make_pair_family(argument.table, s.pair), n}};
        for (const auto& [other, count] : with_) {
          require_compositions(count);
          parts.emplace_back(make_pair_family(other, s.pair), count);
        }
        return Bounds(account_heterogeneous(parts, s.accountant));
      },
      py::arg("table"), py::arg("compositions") = py::none(), NOISELEARN_ACCOUNTING_KWARGS,
      py::arg("with_") = std::vector<std::pair<NoiseTable, int64_t>>{},
      (std::string("Certified bounds for `compositions` releases (None: the recorded number, else 1) of table + noise "
                   "(and, with with_=[(table2, n2), ...], of the other tables' releases composed with them, in any "
                   "order). table: a NoiseTable or a table file's path. neighbours: 'any' or 'same-direction'; pair: "
                   "'additive' or 'subsampled' (with sampling_rate); sensitivity in x units, a whole number of grid "
                   "steps.") +
       keyword_defaults())
          .c_str());

  m.def(
      "certify",
      [](const py::object& table_or_path, std::optional<int64_t> compositions,
         std::optional<std::vector<double>> epsilons, std::optional<std::vector<double>> deltas,
         NOISELEARN_KEYWORD_PARAMETERS) {
        const TableArgument argument = table_argument(table_or_path, "table");
        const RecordedCertification& recorded = argument.recorded;
        CertificateRequest request;
        request.compositions = compositions ? *compositions : recorded.compositions.value_or(1);
        require_compositions(request.compositions);
        const Settings s = settings_of(NOISELEARN_KEYWORDS, recorded);
        request.epsilons = epsilons ? *epsilons : recorded.epsilons;
        request.deltas = deltas ? *deltas : recorded.deltas;
        if (!epsilons && !deltas && request.epsilons.empty() && request.deltas.empty())
          request.deltas = kDefaultCertificateDeltas;
        request.validate();
        Certificate certificate;
        {
          py::gil_scoped_release release;
          certificate = make_certificate(account(make_pair_family(argument.table, s.pair), request.compositions,
                                                 s.accountant, queries_of(request)),
                                         request, s.accountant);
        }
        py::dict out = py::module_::import("json").attr("loads")(certificate_json(certificate).dump());
        out["report"] = certificate.report();
        return out;
      },
      py::arg("table"), py::arg("compositions") = py::none(), py::arg("epsilons") = py::none(),
      py::arg("deltas") = py::none(), NOISELEARN_ACCOUNTING_KWARGS,
      (fmt::format("The certificate noiselearn writes into noise.json, as a dict (plus 'report', the text the CLI "
                   "prints). epsilons, deltas: the queries (None: the recorded ones, else deltas {}).",
                   format_settings(kDefaultCertificateDeltas)) +
       keyword_defaults())
          .c_str());

  def_continuous_mechanism(
      m, "gaussian_mechanism", &gaussian_mechanism_bounds,
      [](double sigma, double sensitivity, int64_t n) -> std::optional<ClosedFormBounds> {
        // mu^2 = n s^2 / sigma^2: n releases of multiplier sigma / s (its rounding within mu's bracket).
        return gaussian_closed_form(composed_gaussian_mu({{sigma / sensitivity, static_cast<double>(n), 1.0}}));
      },
      "sigma",
      "Certified bounds for the continuous Gaussian mechanism N(0, sigma^2), composed `compositions` times (answered "
      "by Balle and Wang's closed form, to its rounding).");
  def_continuous_mechanism(
      m, "laplace_mechanism", &laplace_mechanism_bounds,
      [](double scale, double sensitivity, int64_t n) -> std::optional<ClosedFormBounds> {
        if (n != 1) return std::nullopt;
        return laplace_closed_form(scale, sensitivity);
      },
      "scale",
      "Certified bounds for the continuous Laplace mechanism with scale b (one release: answered by its closed form).");
  m.def(
      "gaussian_mechanism_delta", &gaussian_mechanism_delta, py::arg("sigma"), py::arg("sensitivity"),
      py::arg("compositions"), py::arg("epsilon"),
      "The exact delta(epsilon) of the n-fold Gaussian mechanism (Balle and Wang 2018, closed form: the composition is "
      "the Gaussian mechanism with sigma / sqrt(n)).");
  m.def("set_threads", &set_accountant_threads, py::arg("threads"),
        "Threads for the accountant's exact adaptive programme (default: OMP_NUM_THREADS, else the processors this "
        "process may run on). Results do not depend on it.");
  m.def("threads", &accountant_threads, "The accountant's thread count (set_threads).");
  m.def(
      "release_memory", [] { RealFft::release_thread_caches(); },
      "Frees what the accountant keeps in the calling thread between certificates for speed (its FFT scratch and "
      "recent plans: up to about 140 MB after a 2^22-point certificate). Results do not change; the next large "
      "certificate makes them again.");
}

}  // namespace noiselearn::python
