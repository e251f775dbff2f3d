#include "accounting/exponential_tilt.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

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

namespace {

// K(lambda) = log sum_i m_i e^{lambda l_i} for many lambda of one PLD: the logarithms of the positive masses and their
// losses are taken once (the searches below ask for K up to 80 times), the arithmetic per lambda is the same.
class LogMoment {
 public:
  explicit LogMoment(const PrivacyLossDistribution& pld) {
    for (size_t i = 0; i < pld.masses.size(); ++i)
      if (pld.masses[i] > 0.0) {
        log_masses_.push_back(std::log(pld.masses[i]));
        losses_.push_back(pld.loss(i));
      }
  }

  double operator()(double lambda) const {
    thread_local std::vector<double> exponents;
    exponents.resize(log_masses_.size());
    double largest = -std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < log_masses_.size(); ++i) {
      exponents[i] = log_masses_[i] + lambda * losses_[i];
      largest = std::max(largest, exponents[i]);
    }
    if (!std::isfinite(largest)) return largest;
    double sum = 0.0;
    for (double e : exponents) sum += std::exp(e - largest);
    return largest + std::log(sum);
  }

 private:
  std::vector<double> log_masses_, losses_;
};

}  // namespace

double log_moment(const PrivacyLossDistribution& pld, double lambda) { return LogMoment(pld)(lambda); }

double tilted_mass(const PrivacyLossDistribution& pld) {
  if (!(pld.tilt.lambda > 0.0)) return pld.finite_mass();
  return std::exp(log_moment(pld, pld.tilt.lambda) - pld.tilt.lambda * pld.tilt.reference);
}

void apply_tilt(PrivacyLossDistribution& single, double lambda) {
  single.tilt.lambda = lambda;
  if (!(lambda > 0.0)) return;
  const double k = log_moment(single, lambda);
  single.tilt.reference = std::isfinite(k) ? k / lambda : 0.0;
  double largest_weight = 0.0;
  if (!single.masses.empty())
    largest_weight = std::exp(lambda * (single.loss(single.masses.size() - 1) - single.tilt.reference));
  single.tilt.error = single.numerical_error * std::max(largest_weight, 0.0);
  single.tilt.infinity_error = single.numerical_error;
}

double chernoff_tilt_for_epsilon(const PrivacyLossDistribution& single, int64_t n, double epsilon) {
  if (single.masses.empty()) return 0.0;
  const double count = static_cast<double>(n);
  const LogMoment moment(single);
  auto exponent = [&](double lambda) { return count * moment(lambda) - lambda * epsilon; };
  // At or below n times the mean loss the exponent increases from lambda = 0 (its slope there is n K'(0) - eps): no
  // tilt. The slope is taken from the mean itself: K(lo) - K(0) is below K's rounding when the losses are small (a
  // release sampled at q = 1e-5 has losses of about 1e-5; lo = 1e-8), and n times that rounding can pass for a rise.
  long double mass = 0.0L, first_moment = 0.0L;
  for (size_t i = 0; i < single.masses.size(); ++i) {
    mass += single.masses[i];
    first_moment += static_cast<long double>(single.masses[i]) * single.loss(i);
  }
  if (!(mass > 0.0L) || count * static_cast<double>(first_moment / mass) >= epsilon) return 0.0;
  const auto [lo, hi] = lambda_range(single);
  return minimise_over_log_lambda(exponent, lo, hi);
}

double chernoff_epsilon(const PrivacyLossDistribution& single, int64_t n, double delta) {
  if (single.masses.empty()) return 0.0;
  const double count = static_cast<double>(n), log_inverse = -std::log(delta);
  const LogMoment moment(single);
  auto estimate = [&](double lambda) { return (count * moment(lambda) + log_inverse) / lambda; };
  const auto [lo, hi] = lambda_range(single);
  return estimate(minimise_over_log_lambda(estimate, lo, hi));
}

}  // namespace noiselearn
