#pragma once
// Pearson's chi-square goodness-of-fit test for the sampler tests, with its threshold computed from the
// chi-square distribution (not a rule of thumb): the regularised upper incomplete gamma function
// Q(df/2, x/2) is the probability that a correct sampler exceeds x.
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

namespace noiselearn::testing {

// Q(a, x) = Gamma(a, x) / Gamma(a): the power series of P = 1 - Q below x = a + 1, where it converges fast,
// and the continued fraction of Q (modified Lentz) above, where 1 - P would lose the small tail to cancellation.
inline double regularised_upper_gamma(double a, double x) {
  if (x <= 0.0) return 1.0;
  const double log_prefactor = -x + a * std::log(x) - std::lgamma(a);
  if (x < a + 1.0) {
    double term = 1.0 / a, sum = term;
    for (int n = 1; n < 100000; ++n) {
      term *= x / (a + n);
      sum += term;
      if (std::abs(term) < std::abs(sum) * 1e-17) break;
    }
    return 1.0 - sum * std::exp(log_prefactor);
  }
  constexpr double tiny = 1e-300;
  double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
  for (int i = 1; i < 100000; ++i) {
    const double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    if (std::abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double change = d * c;
    h *= change;
    if (std::abs(change - 1.0) < 1e-16) break;
  }
  return std::exp(log_prefactor) * h;
}

// P(chi2_df > x).
inline double chi_square_tail(double df, double x) { return regularised_upper_gamma(df / 2.0, x / 2.0); }

// The x with P(chi2_df > x) = false_alarm, by bisection (the tail is decreasing in x).
inline double chi_square_threshold(double df, double false_alarm) {
  double low = 0.0, high = df + 10.0;
  while (chi_square_tail(df, high) > false_alarm) high *= 2.0;
  for (int i = 0; i < 200; ++i) {
    const double middle = 0.5 * (low + high);
    (chi_square_tail(df, middle) > false_alarm ? low : high) = middle;
  }
  return high;
}

struct ChiSquare {
  double statistic = 0.0;
  int64_t degrees_of_freedom = 0;
  double threshold = 0.0;  // at the requested false-alarm rate
  double tail = 1.0;       // P(chi2 > statistic): the p-value
};

// Cells whose expected count is below 5 are pooled into one category (the usual validity condition of the
// chi-square approximation); a pooled category with a tiny expectation still fails loudly if hit.
inline ChiSquare chi_square_test(const std::vector<int64_t>& observed, const std::vector<double>& probability,
                                 int64_t draws, double false_alarm) {
  if (observed.size() != probability.size()) throw std::invalid_argument("chi_square_test: sizes differ");
  ChiSquare out;
  int64_t categories = 0;
  double pooled_expected = 0.0;
  int64_t pooled_observed = 0;
  for (size_t i = 0; i < observed.size(); ++i) {
    const double expected = probability[i] * static_cast<double>(draws);
    if (expected < 5.0) {
      pooled_expected += expected;
      pooled_observed += observed[i];
      continue;
    }
    const double difference = static_cast<double>(observed[i]) - expected;
    out.statistic += difference * difference / expected;
    ++categories;
  }
  if (pooled_expected > 0.0) {
    const double difference = static_cast<double>(pooled_observed) - pooled_expected;
    out.statistic += difference * difference / pooled_expected;
    ++categories;
  } else if (pooled_observed > 0) {
    out.statistic = std::numeric_limits<double>::infinity();  // an impossible outcome was drawn
  }
  out.degrees_of_freedom = categories - 1;
  out.threshold = chi_square_threshold(static_cast<double>(out.degrees_of_freedom), false_alarm);
  out.tail = chi_square_tail(static_cast<double>(out.degrees_of_freedom), out.statistic);
  return out;
}

}  // namespace noiselearn::testing
