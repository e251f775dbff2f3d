// noiselearn.account / account_sequence / certify and the continuous mechanisms: the certified accountant from
// Python. Bounds.delta(eps) and Bounds.epsilon(delta) return (lower, upper), rigorous both ways, after the same
// refinement the certificates use (exponential tilting where the floating-point allowance dominates). The neighbour
// relation is explicit: 'any' (default: any adaptive sequence of query differences in [-s, s]) or 'same-direction'.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <fmt/format.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "accounting/accountant_threads.hpp"
#include "accounting/certificate.hpp"
#include "accounting/continuous_mechanisms.hpp"
#include "accounting/pair_accountant.hpp"
#include "accounting/real_fft.hpp"
#include "core/dominating_pair.hpp"
#include "core/errors.hpp"
#include "io/certificate_files.hpp"
#include "python/bindings.hpp"

namespace py = pybind11;

namespace noiselearn::python {

namespace {

// The keyword arguments every accounting function takes, named like the CLI options.
struct Settings {
  PairSpecification pair;
  AccountantOptions accountant;
};

Settings settings_of(double sensitivity, const std::string& neighbours, const std::string& shifts, const std::string& pair_kind,
                     double sampling_rate, double loss_step, double tail_mass, const std::string& several_pairs,
                     double adaptive_budget, double adaptive_block_budget) {
  Settings s;
  s.pair.kind = parse_pair_kind(pair_kind);
  s.pair.sensitivity = sensitivity;
  s.pair.sampling_rate = sampling_rate;
  s.pair.shifts = parse_shift_policy(shifts);
  s.pair.neighbours = parse_neighbour_relation(neighbours);
  s.accountant.loss_step = loss_step;
  s.accountant.tail_mass = tail_mass;
  s.accountant.several_pairs = parse_several_pairs_method(several_pairs);
  s.accountant.adaptive_budget = adaptive_budget;
  s.accountant.adaptive_block_budget = adaptive_block_budget;
  s.accountant.validate();
  return s;
}

// Bounds on delta(eps) of a composition, both ways; refined on demand (so not const).
class Bounds {
 public:
  explicit Bounds(PairBounds bounds) : bounds_(std::move(bounds)) {}
  std::pair<double, double> delta(double epsilon) {
    bounds_.refine_for_epsilon(epsilon);
    return {bounds_.delta_lower(epsilon), bounds_.delta_upper(epsilon)};
  }
  std::pair<double, double> epsilon(double delta) {
    if (!(delta > 0.0 && delta < 1.0)) throw InputError(fmt::format("delta {} must be in (0, 1)", delta));
    bounds_.refine_for_delta(delta);
    return {bounds_.epsilon_lower(delta), bounds_.epsilon_upper(delta)};
  }
  std::string description() const {
    std::string text = bounds_.pair_description + "; " + bounds_.shift_justification;
    if (!bounds_.several_pairs_note.empty()) text += "; " + bounds_.several_pairs_note;
    return text;
  }
  int64_t compositions() const { return bounds_.compositions; }
  const PairBounds& bounds() const { return bounds_; }

 private:
  PairBounds bounds_;
};

void require_compositions(int64_t n) {
  if (n < 1 || n > kMaxCompositions) throw InputError(fmt::format("compositions {} must be in 1..{}", n, kMaxCompositions));
}

#define NOISELEARN_ACCOUNTING_KWARGS                                                                                   \
  py::kw_only(), py::arg("sensitivity") = 1.0, py::arg("neighbours") = "any", py::arg("shifts") = "auto",             \
      py::arg("pair") = "additive", py::arg("sampling_rate") = 1.0, py::arg("loss_step") = 1e-4,                      \
      py::arg("tail_mass") = 1e-15, py::arg("several_pairs") = "auto", py::arg("adaptive_budget") = 1e11, \
      py::arg("adaptive_block_budget") = 3e10

}  // namespace

void bind_accountant(py::module_& m) {
  py::class_<Bounds>(m, "Bounds",
                     "Rigorous bounds on delta(epsilon) of a composition: delta(eps) and epsilon(delta) return "
                     "(lower, upper).")
      .def("delta", &Bounds::delta, py::arg("epsilon"), "(lower, upper) bounds on delta at epsilon")
      .def("epsilon", &Bounds::epsilon, py::arg("delta"), "(lower, upper) bounds on the least epsilon with delta(epsilon) <= delta")
      .def_property_readonly("description", &Bounds::description, "The pair, the neighbours covered and the method")
      .def_property_readonly("compositions", &Bounds::compositions);

  m.def(
      "account",
      [](const NoiseTable& table, int64_t compositions, double sensitivity, const std::string& neighbours, const std::string& shifts,
         const std::string& pair, double sampling_rate, double loss_step, double tail_mass, const std::string& several_pairs,
         double adaptive_budget, double adaptive_block_budget, const std::vector<std::pair<NoiseTable, int64_t>>& with_) {
        require_compositions(compositions);
        const Settings s = settings_of(sensitivity, neighbours, shifts, pair, sampling_rate, loss_step, tail_mass, several_pairs,
                                       adaptive_budget, adaptive_block_budget);
        py::gil_scoped_release release;
        if (with_.empty()) return Bounds(account(make_pair_family(table, s.pair), compositions, s.accountant));
        // A heterogeneous sequence (the CLI's --with): every part its table and count, the pair options shared.
        std::vector<std::pair<PairFamily, int64_t>> parts{{make_pair_family(table, s.pair), compositions}};
        for (const auto& [other, n] : with_) {
          require_compositions(n);
          parts.emplace_back(make_pair_family(other, s.pair), n);
        }
        return Bounds(account_heterogeneous(parts, s.accountant));
      },
      py::arg("table"), py::arg("compositions") = 1, NOISELEARN_ACCOUNTING_KWARGS,
      py::arg("with_") = std::vector<std::pair<NoiseTable, int64_t>>{},
      "Certified bounds for `compositions` releases of table + noise (and, with with_=[(table2, n2), ...], of the other "
      "tables' releases composed with them, in any order). neighbours: 'any' or 'same-direction'; pair: 'additive' or "
      "'subsampled' (with sampling_rate); sensitivity in x units, a whole number of grid steps.");

  m.def(
      "certify",
      [](const NoiseTable& table, int64_t compositions, const std::vector<double>& epsilons, const std::vector<double>& deltas,
         double sensitivity, const std::string& neighbours, const std::string& shifts, const std::string& pair, double sampling_rate,
         double loss_step, double tail_mass, const std::string& several_pairs, double adaptive_budget,
         double adaptive_block_budget) {
        require_compositions(compositions);
        const Settings s = settings_of(sensitivity, neighbours, shifts, pair, sampling_rate, loss_step, tail_mass, several_pairs,
                                       adaptive_budget, adaptive_block_budget);
        CertificateRequest request;
        request.compositions = compositions;
        request.epsilons = epsilons;
        request.deltas = deltas;
        request.validate();
        Certificate certificate;
        {
          py::gil_scoped_release release;
          certificate = make_certificate(account(make_pair_family(table, s.pair), compositions, s.accountant), request, s.accountant);
        }
        py::dict out = py::module_::import("json").attr("loads")(certificate_json(certificate).dump());
        out["report"] = certificate.report();
        return out;
      },
      py::arg("table"), py::arg("compositions") = 1, py::arg("epsilons") = std::vector<double>{},
      py::arg("deltas") = std::vector<double>{1e-3, 1e-6, 1e-9}, NOISELEARN_ACCOUNTING_KWARGS,
      "The certificate noiselearn writes into noise.json, as a dict (plus 'report', the text the CLI prints).");

  m.def(
      "gaussian_mechanism",
      [](double sigma, double sensitivity, int64_t compositions, double loss_step) {
        require_compositions(compositions);
        AccountantOptions options;
        options.loss_step = loss_step;
        options.validate();
        return Bounds(compose_bounds(gaussian_mechanism_bounds(sigma, sensitivity, options), compositions, options));
      },
      py::arg("sigma"), py::kw_only(), py::arg("sensitivity") = 1.0, py::arg("compositions") = 1, py::arg("loss_step") = 1e-4,
      "Certified bounds for the continuous Gaussian mechanism N(0, sigma^2).");
  m.def(
      "laplace_mechanism",
      [](double scale, double sensitivity, int64_t compositions, double loss_step) {
        require_compositions(compositions);
        AccountantOptions options;
        options.loss_step = loss_step;
        options.validate();
        return Bounds(compose_bounds(laplace_mechanism_bounds(scale, sensitivity, options), compositions, options));
      },
      py::arg("scale"), py::kw_only(), py::arg("sensitivity") = 1.0, py::arg("compositions") = 1, py::arg("loss_step") = 1e-4,
      "Certified bounds for the continuous Laplace mechanism with scale b.");
  m.def("gaussian_mechanism_delta", &gaussian_mechanism_delta, py::arg("sigma"), py::arg("sensitivity"), py::arg("compositions"),
        py::arg("epsilon"),
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
