#include "run/privacy_boosting_run.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cmath>

#include "accounting/continuous_mechanisms.hpp"
#include "accounting/pair_accountant.hpp"
#include "accounting/privacy_boosting_accountant.hpp"
#include "accounting/refinement.hpp"
#include "core/errors.hpp"
#include "core/privacy_boosting.hpp"
#include "solvers/privacy_boosting_calibration.hpp"

namespace noiselearn {

namespace {

// The least eps with delta(eps) <= delta of the Gaussian mechanism (Balle and Wang), by bisection.
double gaussian_epsilon(double sigma, double sensitivity, int64_t n, double delta) {
  double lo = 0.0, hi = 1.0;
  if (gaussian_mechanism_delta(sigma, sensitivity, n, 0.0) <= delta) return 0.0;
  while (gaussian_mechanism_delta(sigma, sensitivity, n, hi) > delta) hi *= 2.0;
  for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (gaussian_mechanism_delta(sigma, sensitivity, n, mid) > delta ? lo : hi) = mid;
  }
  return hi;
}

// The checked options of a boost: the region S, the kernel, the answers' sensitivity on the query lattice, the
// accountant, and the deltas asked (BoostingCalibrationOptions::delta unless given).
struct BoostingSetting {
  PreferredRegion region;
  BoostingKernelKind kind;
  AnswerSensitivity answer_bound;
  AccountantOptions accountant;
  std::vector<double> deltas;
};

BoostingSetting boosting_setting_of(const PrivacyBoostingRunOptions& o) {
  BoostingSetting setting;
  PreferredRegion& region = setting.region;
  region.kind = parse_preferred_region(o.region);
  region.tau = o.tau;
  region.theta = o.theta;
  region.lower = o.lower;
  region.upper = o.upper;
  region.validate();
  setting.kind = parse_boosting_kernel(o.kernel);
  if (!(o.rho > 0.0 && o.rho <= 1.0)) throw InputError(fmt::format("--rho {}: must be in (0, 1]", o.rho));
  if (!(o.scale >= 0.0 && std::isfinite(o.scale)))
    throw InputError(fmt::format("--scale {}: must be >= 0 (0 calibrates)", o.scale));
  if (o.compositions < 1 || o.compositions > kMaxCompositions)
    throw InputError(fmt::format("--compositions {}: must be in 1..{}", o.compositions, kMaxCompositions));
  for (double d : o.deltas)
    if (!(d > 0.0 && d < 1.0)) throw InputError(fmt::format("--delta {}: must be in (0, 1)", d));
  for (double e : o.epsilons)
    if (!(e >= 0.0 && std::isfinite(e))) throw InputError(fmt::format("--epsilon {}: must be finite and >= 0", e));
  setting.answer_bound.sensitivity = o.sensitivity;
  setting.answer_bound.query_step = o.query_step;
  setting.answer_bound.validate();
  setting.accountant.loss_step = o.loss_step;
  setting.accountant.validate();
  setting.deltas = o.deltas.empty() ? std::vector<double>{BoostingCalibrationOptions{}.delta} : o.deltas;
  return setting;
}

// --scale 0: the kernel scale of the least certified epsilon at the first delta after n releases (reported with its
// scan).
double calibrated_scale(const PrivacyBoostingRunOptions& o, const BoostingSetting& setting, nlohmann::json& report) {
  if (o.rho >= 1.0) throw InputError("--scale 0 (calibrate) needs --rho below 1");
  BoostingCalibrationOptions calibration;
  calibration.compositions = o.compositions;
  calibration.delta = setting.deltas.front();
  calibration.max_scale_factor = o.max_scale_factor;
  spdlog::info("calibrating the {} kernel scale to the least certified epsilon at delta {:g} after {} release(s)",
               o.kernel, calibration.delta, o.compositions);
  const BoostingCalibration c = calibrate_boosting_scale(setting.kind, setting.region, o.rho, setting.answer_bound,
                                                         calibration, setting.accountant);
  nlohmann::json scan = nlohmann::json::array();
  for (const auto& [s, e] : c.scan) scan.push_back({{"scale", s}, {"epsilon_upper", e}});
  report["calibration"] = {
      {"kernel_only_scale", c.kernel_only_scale}, {"scale", c.scale}, {"evaluations", c.evaluations}, {"scan", scan}};
  return c.scale;
}

void report_mechanism(const PrivacyBoostingRunOptions& o, const PreferredRegion& region,
                      const PrivacyBoostingMechanism& mechanism, double scale, nlohmann::json& report) {
  report["mechanism"] = {{"kernel", o.kernel},
                         {"scale", scale},
                         {"region", o.region},
                         {"tau", o.tau},
                         {"theta", o.theta},
                         {"lower", o.lower},
                         {"upper", o.upper},
                         {"smallest_region_width", region.smallest_width()},
                         {"rho", o.rho},
                         {"q", mechanism.q()},
                         {"region_probability_least", mechanism.region_probability(region.least_mass_query())},
                         {"mean_squared_error_least", mechanism.mean_squared_error(region.least_mass_query())}};
}

// The answer pairs the certificate covers, and which of them are worst.
void report_neighbours(const PrivacyBoostingRunOptions& o, const PrivacyBoostingBounds& single,
                       const PairBounds& bounds, nlohmann::json& report) {
  report["neighbours"] = {{"sensitivity", o.sensitivity},
                          {"query_step", o.query_step},
                          {"answer_pairs", single.pairs.size()},
                          {"covers", bounds.accounted.pairs_checked},
                          {"most_often_worst_pair", single.worst_pair.description()}};
  nlohmann::json worst = nlohmann::json::array();
  for (const auto& [d, p] : single.worst_pair_at_delta) worst.push_back({{"delta", d}, {"pair", p.description()}});
  report["neighbours"]["worst_pair_at_delta"] = worst;
  nlohmann::json lower = nlohmann::json::array();
  for (const auto& p : single.lower_bound_pairs) lower.push_back(p.description());
  report["neighbours"]["lower_bound_pairs"] = lower;
}

std::string describe_boosting(const PrivacyBoostingRunOptions& o, const PreferredRegion& region,
                              const PrivacyBoostingMechanism& mechanism, double scale,
                              const PrivacyBoostingBounds& single, const PairBounds& bounds) {
  std::string text =
      fmt::format("privacy boosting: {} kernel, scale {:.6g}; {} region (smallest width {:g}); rho {:g}: q = {:.6g}\n",
                  o.kernel, scale, o.region, region.smallest_width(), o.rho, mechanism.q());
  text += fmt::format("neighbours: {}\n", bounds.accounted.pairs_checked);
  if (single.pairs.size() == 1)
    text += fmt::format("  the pair: {}\n", single.pairs.front().pair.description());
  else
    for (const auto& [d, p] : single.worst_pair_at_delta)
      text += fmt::format("  worst single pair at delta {:g}: {}\n", d, p.description());
  return text;
}

// The certified epsilon at each delta, beside the Gaussian mechanism that meets the same constraint (sigma with
// Pr[N(0, sigma^2) in S] = rho at the least-mass answer, for rho < 1; 0: none does) and, for one release, the paper's
// heuristic at its answer pair.
nlohmann::json certify_at_deltas(const PrivacyBoostingRunOptions& o, const BoostingSetting& setting,
                                 const PrivacyBoostingMechanism& mechanism, const PairBounds& bounds,
                                 double gaussian_sigma, std::pair<double, double> heuristic_pair, std::string& text) {
  nlohmann::json at_delta = nlohmann::json::array();
  for (double d : setting.deltas) {
    const double up = bounds.epsilon_upper(d), low = bounds.epsilon_lower(d);
    nlohmann::json row = {{"delta", d}, {"epsilon_upper", up}, {"epsilon_lower", low}};
    text += fmt::format("n = {}, delta = {:g}: certified epsilon in [{:.6f}, {:.6f}]\n", o.compositions, d, low, up);
    if (o.rho < 1.0 && gaussian_sigma == 0.0)
      text += fmt::format(
          "  no Gaussian mechanism meets the constraint: a fixed region holds at most half of a symmetric kernel "
          "centred "
          "at its edge\n");
    if (gaussian_sigma > 0.0) {
      const double g = gaussian_epsilon(gaussian_sigma, o.sensitivity, o.compositions, d);
      row["gaussian_sigma"] = gaussian_sigma;
      row["gaussian_epsilon"] = g;
      text += fmt::format(
          "  Gaussian mechanism meeting the same constraint: sigma {:.7g}, exact epsilon {:.7g} (Balle-Wang)\n",
          gaussian_sigma, g);
    }
    if (o.compositions == 1) {
      const double h = paper_heuristic_epsilon(mechanism, o.sensitivity, d);
      row["paper_heuristic_epsilon"] = h;
      text += fmt::format("  paper's heuristic (Thm 1 / Prop. 1 at answers {:g}, {:g}; not a guarantee): {:.6f}\n",
                          heuristic_pair.first, heuristic_pair.second, h);
    }
    at_delta.push_back(row);
  }
  return at_delta;
}

// The certified delta at each epsilon (the composition refined for each in turn).
nlohmann::json certify_at_epsilons(const PrivacyBoostingRunOptions& o, PairBounds& bounds, std::string& text) {
  nlohmann::json at_epsilon = nlohmann::json::array();
  for (double e : o.epsilons) {
    if (o.compositions > 1) bounds = refined_for_epsilon(std::move(bounds), e);
    const double up = bounds.delta_upper(e), low = bounds.delta_lower(e);
    at_epsilon.push_back({{"epsilon", e}, {"delta_upper", up}, {"delta_lower", low}});
    text += fmt::format("n = {}, epsilon = {:g}: certified delta in [{:.6e}, {:.6e}]\n", o.compositions, e, low, up);
  }
  return at_epsilon;
}

}  // namespace

PrivacyBoostingRun run_privacy_boosting(const PrivacyBoostingRunOptions& o) {
  const BoostingSetting setting = boosting_setting_of(o);
  PrivacyBoostingRun out;
  const double scale = o.scale == 0.0 ? calibrated_scale(o, setting, out.report) : o.scale;
  const PrivacyBoostingMechanism mechanism(BoostingKernel{setting.kind, scale}, setting.region, o.rho);
  const PrivacyBoostingBounds single = privacy_boosting_bounds(mechanism, setting.answer_bound, setting.accountant);
  PairBounds bounds =
      o.compositions == 1 ? single.bounds : compose_bounds(single.bounds, o.compositions, setting.accountant);
  const double gaussian_sigma =
      o.rho < 1.0 ? kernel_only_scale(BoostingKernelKind::kGaussian, setting.region, o.rho) : 0.0;
  const auto heuristic_pair = paper_heuristic_pair(mechanism, o.sensitivity);

  report_mechanism(o, setting.region, mechanism, scale, out.report);
  report_neighbours(o, single, bounds, out.report);
  out.report["compositions"] = o.compositions;
  out.report["loss_step"] = o.loss_step;
  if (o.compositions > 1)
    for (double d : setting.deltas) bounds = refined_for_delta(std::move(bounds), d);
  out.text += describe_boosting(o, setting.region, mechanism, scale, single, bounds);
  const nlohmann::json at_delta =
      certify_at_deltas(o, setting, mechanism, bounds, gaussian_sigma, heuristic_pair, out.text);
  const nlohmann::json at_epsilon = certify_at_epsilons(o, bounds, out.text);
  out.report["certificate"] = {{"at_delta", at_delta}, {"at_epsilon", at_epsilon}};
  return out;
}

}  // namespace noiselearn
