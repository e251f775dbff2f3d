#include "accounting/continuous_mechanisms.hpp"

#include <fmt/format.h>

#include <cmath>

#include "accounting/loss_discretisation.hpp"
#include "core/errors.hpp"
#include "core/log_math.hpp"

namespace noiselearn {

namespace {

void check_positive(double value, const char* name) {
  if (!(value > 0.0 && std::isfinite(value)))
    throw InputError(fmt::format("{} {} must be positive and finite", name, value));
}

// Single-release bounds of a mechanism whose A||B and B||A privacy-loss distributions coincide, from atoms that
// dominate (upper) and are dominated by (lower) its privacy loss.
PairBounds symmetric_bounds(const PrivacyLossAtoms& upper, const PrivacyLossAtoms& lower, const std::string& name,
                            const AccountantOptions& options) {
  options.validate();
  PairBounds bounds;
  bounds.accounted.pair = name;
  bounds.accounted.pairs_checked = "worst difference |d| = s (symmetric log-concave noise: Sommer et al., Thm 15)";
  bounds.upper.name = name;
  bounds.upper.first_to_second = discretise(upper, BoundKind::kUpper, options);
  DirectionalPLDs low;
  low.name = name;
  low.first_to_second = discretise(lower, BoundKind::kLower, options);
  bounds.lower.push_back(std::move(low));
  bounds.context.options = options;
  return bounds;
}

// The number of intervals of loss width `width` (an eighth of the loss step) that cover a loss range of `spread`,
// refused beyond 50 million (over 6 million loss steps: a loss step far too fine for the mechanism's scale).
int64_t loss_intervals(double spread, double width, const std::string& mechanism) {
  const auto intervals = static_cast<int64_t>(std::ceil(spread / width));
  if (intervals > 50'000'000)
    throw InputError(
        fmt::format("{}: its loss spreads over {} loss steps; raise the loss step", mechanism, intervals / 8));
  return intervals;
}

}  // namespace

PairBounds gaussian_mechanism_bounds(double sigma, double sensitivity, const AccountantOptions& options) {
  check_positive(sigma, "sigma");
  check_positive(sensitivity, "sensitivity");
  // L ~ N(mu, 2 mu). Cut [mu - 40 sd, mu + 40 sd] (each side's remainder below 1e-300) into intervals of loss
  // width w; the interval's probability from log normal-CDF differences (accurate far into the tails).
  const double mu = sensitivity * sensitivity / (2.0 * sigma * sigma), sd = std::sqrt(2.0 * mu);
  const double half_range = 40.0 * sd;
  const double width = options.loss_step / 8.0;
  const int64_t intervals = loss_intervals(
      2.0 * half_range, width, fmt::format("Gaussian mechanism with sigma {} and sensitivity {}", sigma, sensitivity));
  PrivacyLossAtoms upper, lower;
  upper.losses.reserve(static_cast<size_t>(intervals) + 1);
  upper.masses.reserve(static_cast<size_t>(intervals) + 1);
  const double start = mu - half_range;
  // Below the range: mass Phi(-40) in the upper bound goes to the lowest point (raised), in the lower bound it is
  // dropped (lowered to -infinity, which contributes nothing). Above it: the upper bound counts it as infinite loss.
  upper.losses.push_back(start);
  upper.masses.push_back(std::exp(log_normal_cdf(-half_range / sd)));
  for (int64_t k = 0; k < intervals; ++k) {
    const double left = start + static_cast<double>(k) * width,
                 right = std::min(start + half_range * 2.0, left + width);
    const double mass = std::exp(log_normal_interval((left - mu) / sd, (right - mu) / sd));
    if (mass == 0.0) continue;
    upper.losses.push_back(right);
    upper.masses.push_back(mass);
    lower.losses.push_back(left);
    lower.masses.push_back(mass);
  }
  upper.infinity_mass = std::exp(log_normal_cdf(-half_range / sd));
  return symmetric_bounds(upper, lower,
                          fmt::format("Gaussian mechanism, sigma {:g}, sensitivity {:g}", sigma, sensitivity), options);
}

PairBounds laplace_mechanism_bounds(double scale, double sensitivity, const AccountantOptions& options) {
  check_positive(scale, "Laplace scale");
  check_positive(sensitivity, "sensitivity");
  const double a = sensitivity / scale;
  PrivacyLossAtoms upper, lower;
  // The two atoms: x <= 0 (loss +a, mass 1/2) and x >= s (loss -a, mass e^-a / 2).
  for (PrivacyLossAtoms* atoms : {&upper, &lower}) {
    atoms->losses = {a, -a};
    atoms->masses = {0.5, 0.5 * std::exp(-a)};
  }
  // In between, x in (0, s) maps to the loss (s - 2x)/b, decreasing in x: cut x into intervals of loss width w.
  const double width = options.loss_step / 8.0;
  const int64_t intervals = loss_intervals(
      2.0 * a, width, fmt::format("Laplace mechanism with scale {} and sensitivity {}", scale, sensitivity));
  const double dx = sensitivity / static_cast<double>(intervals);
  for (int64_t k = 0; k < intervals; ++k) {
    const double x0 = static_cast<double>(k) * dx, x1 = k + 1 == intervals ? sensitivity : x0 + dx;
    // Mass of (x0, x1) under Laplace(0, b): (e^(-x0/b) - e^(-x1/b)) / 2 = e^(-x0/b) (1 - e^(-(x1-x0)/b)) / 2.
    const double mass = 0.5 * std::exp(-x0 / scale) * -std::expm1(-(x1 - x0) / scale);
    upper.losses.push_back((sensitivity - 2.0 * x0) / scale);
    upper.masses.push_back(mass);
    lower.losses.push_back((sensitivity - 2.0 * x1) / scale);
    lower.masses.push_back(mass);
  }
  return symmetric_bounds(upper, lower,
                          fmt::format("Laplace mechanism, scale {:g}, sensitivity {:g}", scale, sensitivity), options);
}

double gaussian_mechanism_delta(double sigma, double sensitivity, int64_t n, double epsilon) {
  check_positive(sigma, "sigma");
  check_positive(sensitivity, "sensitivity");
  const double m = sensitivity * std::sqrt(static_cast<double>(n)) / sigma;
  const double first = log_normal_cdf(-epsilon / m + m / 2.0);
  const double second = epsilon + log_normal_cdf(-epsilon / m - m / 2.0);
  if (!(first > second)) return 0.0;
  return std::exp(log_diff_exp(first, second));
}

}  // namespace noiselearn
