#include "accounting/exponential_tilt.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace noiselearn {

double minimise_over_log_lambda(const std::function<double(double)>& f, double lo, double hi, double log_tolerance) {
  const double ratio = (std::sqrt(5.0) - 1.0) / 2.0;
  double a = std::log(lo), b = std::log(hi);
  double c = b - ratio * (b - a), d = a + ratio * (b - a);
  double fc = f(std::exp(c)), fd = f(std::exp(d));
  for (int i = 0; i < 80 && b - a > log_tolerance; ++i) {
    if (fc <= fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - ratio * (b - a);
      fc = f(std::exp(c));
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + ratio * (b - a);
      fd = f(std::exp(d));
    }
  }
  return std::exp(0.5 * (a + b));
}

namespace {

// A range of tilts worth searching: from tiny to where lambda times the loss range is a few hundred.
std::pair<double, double> lambda_range(const PrivacyLossDistribution& pld) {
  double spread = 1.0;
  if (!pld.masses.empty()) spread = std::max({1e-6, std::abs(pld.loss(0)), std::abs(pld.loss(pld.masses.size() - 1))});
  return {1e-8, 600.0 / spread};
}

}  // namespace

double log_moment(const PrivacyLossDistribution& pld, double lambda) {
  double largest = -std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < pld.masses.size(); ++i)
    if (pld.masses[i] > 0.0) largest = std::max(largest, std::log(pld.masses[i]) + lambda * pld.loss(i));
  if (!std::isfinite(largest)) return largest;
  double sum = 0.0;
  for (size_t i = 0; i < pld.masses.size(); ++i)
    if (pld.masses[i] > 0.0) sum += std::exp(std::log(pld.masses[i]) + lambda * pld.loss(i) - largest);
  return largest + std::log(sum);
}

double tilted_mass(const PrivacyLossDistribution& pld) {
  if (!(pld.tilt > 0.0)) return pld.finite_mass();
  return std::exp(log_moment(pld, pld.tilt) - pld.tilt * pld.tilt_reference);
}

void apply_tilt(PrivacyLossDistribution& single, double lambda) {
  single.tilt = lambda;
  if (!(lambda > 0.0)) return;
  const double k = log_moment(single, lambda);
  single.tilt_reference = std::isfinite(k) ? k / lambda : 0.0;
  double largest_weight = 0.0;
  if (!single.masses.empty())
    largest_weight = std::exp(lambda * (single.loss(single.masses.size() - 1) - single.tilt_reference));
  single.tilted_error = single.numerical_error * std::max(largest_weight, 0.0);
  single.infinity_error = single.numerical_error;
}

double chernoff_tilt_for_epsilon(const PrivacyLossDistribution& single, int64_t n, double epsilon) {
  if (single.masses.empty()) return 0.0;
  const double count = static_cast<double>(n);
  auto exponent = [&](double lambda) { return count * log_moment(single, lambda) - lambda * epsilon; };
  // Below the mean loss the exponent increases from lambda = 0: no tilt.
  const auto [lo, hi] = lambda_range(single);
  if (exponent(lo) >= exponent(0.0)) return 0.0;
  return minimise_over_log_lambda(exponent, lo, hi);
}

double chernoff_epsilon(const PrivacyLossDistribution& single, int64_t n, double delta) {
  if (single.masses.empty()) return 0.0;
  const double count = static_cast<double>(n), log_inverse = -std::log(delta);
  auto estimate = [&](double lambda) { return (count * log_moment(single, lambda) + log_inverse) / lambda; };
  const auto [lo, hi] = lambda_range(single);
  return estimate(minimise_over_log_lambda(estimate, lo, hi));
}

}  // namespace noiselearn
