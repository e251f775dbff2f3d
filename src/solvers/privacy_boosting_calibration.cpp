#include "solvers/privacy_boosting_calibration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "accounting/pair_accountant.hpp"
#include "accounting/refinement.hpp"
#include "core/errors.hpp"
#include "core/monotone_search.hpp"

namespace noiselearn {

std::pair<double, double> boosting_certified_epsilon(const PrivacyBoostingMechanism& mechanism,
                                                     const AnswerSensitivity& answer_bound, int64_t compositions,
                                                     double delta, const AccountantOptions& options) {
  const PrivacyBoostingBounds single = privacy_boosting_bounds(mechanism, answer_bound, options);
  PairBounds composed = compositions == 1 ? single.bounds : compose_bounds(single.bounds, compositions, options);
  composed = refined_for_delta(std::move(composed), delta);
  return {composed.epsilon_upper(delta), composed.epsilon_lower(delta)};
}

double kernel_only_scale(BoostingKernelKind kind, const PreferredRegion& region, double rho) {
  if (!(rho > 0.0 && rho < 1.0)) throw InputError(fmt::format("rho {}: must be in (0, 1) to calibrate", rho));
  region.validate();
  const double query = region.least_mass_query();
  auto mass = [&](double scale) { return std::exp(log_region_mass(BoostingKernel{kind, scale}, region, query)); };
  // The mass in the region falls as the scale grows. Its limit for a vanishing scale is 1 for regions around the
  // answer, but only 1/2 for a fixed region whose edge is the answer: then no kernel alone meets rho > 1/2.
  const double width = region.smallest_width();
  if (mass(1e-9 * width) < rho) return 0.0;
  double lo = 1e-9 * width, hi = width;
  while (mass(hi) > rho) hi *= 2.0;
  return bisect(
             {lo, hi}, [&](double mid) { return mass(mid) >= rho; },
             [](double low, double high) { return high / low > 1.0 + 1e-14; }, 200, Midpoint::kGeometric)
      .low;
}

BoostingCalibration calibrate_boosting_scale(BoostingKernelKind kind, const PreferredRegion& region, double rho,
                                             const AnswerSensitivity& answer_bound,
                                             const BoostingCalibrationOptions& calibration,
                                             const AccountantOptions& options) {
  if (calibration.scan_points < 3) throw InputError("calibration scan_points: at least 3");
  if (!(calibration.max_scale_factor > 1.0)) throw InputError("calibration max_scale_factor: must exceed 1");
  BoostingCalibration result;
  result.kernel_only_scale = kernel_only_scale(kind, region, rho);
  auto evaluate = [&](double scale) {
    ++result.evaluations;
    const PrivacyBoostingMechanism mechanism(BoostingKernel{kind, scale}, region, rho);
    return boosting_certified_epsilon(mechanism, answer_bound, calibration.compositions, calibration.delta, options);
  };
  // No kernel alone meets rho (a fixed region with rho > 1/2): scan [|S| / 32, |S|] instead (and extend as below).
  const bool kernel_meets = result.kernel_only_scale > 0.0;
  const double s0 = kernel_meets ? result.kernel_only_scale : region.smallest_width() / 32.0;
  const double span = kernel_meets ? calibration.max_scale_factor : 32.0;
  const int n = kernel_meets ? calibration.scan_points : 2 * calibration.scan_points;
  std::vector<double> scales(n), values(n);
  for (int i = 0; i < n; ++i) {
    scales[i] = s0 * std::pow(span, static_cast<double>(i) / (n - 1));
    values[i] = evaluate(scales[i]).first;
    result.scan.emplace_back(scales[i], values[i]);
  }
  // Extend the scan geometrically while its best point is its last one (up to 64 s0).
  const double ratio = std::pow(span, 1.0 / (n - 1));
  while (std::min_element(values.begin(), values.end()) - values.begin() == static_cast<long>(scales.size()) - 1 &&
         scales.back() * ratio <= 64.0 * s0 * (kernel_meets ? 1.0 : 32.0)) {
    scales.push_back(scales.back() * ratio);
    values.push_back(evaluate(scales.back()).first);
    result.scan.emplace_back(scales.back(), values.back());
  }
  const int count = static_cast<int>(scales.size());
  const int best = static_cast<int>(std::min_element(values.begin(), values.end()) - values.begin());
  // Golden section on [scales[best - 1], scales[best + 1]] (log scale).
  double a = std::log(scales[std::max(0, best - 1)]), b = std::log(scales[std::min(count - 1, best + 1)]);
  const double g = (std::sqrt(5.0) - 1.0) / 2.0;
  double c = b - g * (b - a), d = a + g * (b - a);
  double fc = evaluate(std::exp(c)).first, fd = evaluate(std::exp(d)).first;
  double best_scale = scales[best], best_value = values[best];
  while (b - a > calibration.relative_tolerance) {
    if (fc <= fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - g * (b - a);
      fc = evaluate(std::exp(c)).first;
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + g * (b - a);
      fd = evaluate(std::exp(d)).first;
    }
    if (fc < best_value) {
      best_value = fc;
      best_scale = std::exp(c);
    }
    if (fd < best_value) {
      best_value = fd;
      best_scale = std::exp(d);
    }
  }
  result.scale = best_scale;
  const auto final_bounds = evaluate(best_scale);
  result.epsilon_upper = final_bounds.first;
  result.epsilon_lower = final_bounds.second;
  return result;
}

namespace {

// The certified epsilon is not monotone in rho or in the region: a little boosting lowers the kernel's tail losses
// before the region constant takes over. So each inversion scans a grid and bisects at the crossing it wants.
// scan must be increasing; ok(scan[i]) is the predicate. Returns the boundary between the last (or first) passing
// grid point and its failing neighbour, on the passing side, or NaN when no grid point passes.
template <class Ok>
double crossing(const std::vector<double>& scan, Ok ok, bool largest, double tolerance) {
  std::vector<char> pass(scan.size());
  for (size_t i = 0; i < scan.size(); ++i) pass[i] = ok(scan[i]);
  if (largest) {
    for (size_t i = scan.size(); i-- > 0;) {
      if (!pass[i]) continue;
      if (i + 1 == scan.size()) return scan[i];
      double good = scan[i], bad = scan[i + 1];
      while (bad - good > tolerance * std::max(1.0, std::abs(bad))) {
        const double mid = 0.5 * (good + bad);
        (ok(mid) ? good : bad) = mid;
      }
      return good;
    }
  } else {
    for (size_t i = 0; i < scan.size(); ++i) {
      if (!pass[i]) continue;
      if (i == 0) return scan[0];
      double bad = scan[i - 1], good = scan[i];
      while (good - bad > tolerance * std::max(1.0, std::abs(good))) {
        const double mid = 0.5 * (good + bad);
        (ok(mid) ? good : bad) = mid;
      }
      return good;
    }
  }
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

double largest_rho_for_epsilon(const BoostingKernel& kernel, const PreferredRegion& region, double target_epsilon,
                               const AnswerSensitivity& answer_bound, int64_t compositions, double delta,
                               const AccountantOptions& options) {
  auto ok = [&](double rho) {
    const PrivacyBoostingMechanism m(kernel, region, rho);
    return boosting_certified_epsilon(m, answer_bound, compositions, delta, options).first <= target_epsilon;
  };
  // Below the kernel's own region mass nothing changes (q = 0); scan from there to 1 - 1e-9.
  const double own = std::exp(log_region_mass(kernel, region, region.least_mass_query()));
  std::vector<double> scan;
  const int points = 32;
  for (int i = 0; i <= points; ++i) scan.push_back(own + (1.0 - 1e-9 - own) * static_cast<double>(i) / points);
  const double rho = crossing(scan, ok, true, 1e-7);
  return std::isnan(rho) ? 0.0 : rho;
}

double smallest_region_for_epsilon(const BoostingKernel& kernel, const PreferredRegion& region, double rho,
                                   double target_epsilon, const AnswerSensitivity& answer_bound, int64_t compositions,
                                   double delta, const AccountantOptions& options) {
  auto with_width = [&](double tau) {
    PreferredRegion r = region;
    if (r.kind == PreferredRegionKind::kFixed) {
      const double centre = 0.5 * (region.lower + region.upper);
      r.lower = centre - tau;
      r.upper = centre + tau;
    } else {
      r.tau = tau;
    }
    return r;
  };
  auto ok = [&](double tau) {
    const PrivacyBoostingMechanism m(kernel, with_width(tau), rho);
    return boosting_certified_epsilon(m, answer_bound, compositions, delta, options).first <= target_epsilon;
  };
  // A geometric scan of tau from 1/64 to 64 kernel standard deviations.
  std::vector<double> scan;
  const double sd = kernel.standard_deviation();
  for (int i = 0; i <= 48; ++i) scan.push_back(sd * std::pow(2.0, -6.0 + 12.0 * i / 48.0));
  const double tau = crossing(scan, ok, false, 1e-7);
  return std::isnan(tau) ? std::numeric_limits<double>::infinity() : tau;
}

}  // namespace noiselearn
