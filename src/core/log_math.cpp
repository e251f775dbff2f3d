#include "core/log_math.hpp"

#include <algorithm>

namespace noiselearn {

double log1mexp(double d) {
  if (d <= 0.0) return kNegativeInfinity;
  return d < M_LN2 ? std::log(-std::expm1(-d)) : std::log1p(-std::exp(-d));
}

double log_diff_exp(double a, double b) {
  if (b == kNegativeInfinity) return a;
  if (a <= b) return kNegativeInfinity;
  return a + log1mexp(a - b);
}

double log_add_exp(double a, double b) {
  if (a < b) std::swap(a, b);
  if (b == kNegativeInfinity) return a;
  return a + std::log1p(std::exp(b - a));
}

double log_sum_exp(const std::vector<double>& values) {
  double top = kNegativeInfinity;
  for (double v : values) top = std::max(top, v);
  if (top == kNegativeInfinity) return top;
  if (std::isinf(top)) return top;
  double sum = 0.0;
  for (double v : values) sum += std::exp(v - top);
  return top + std::log(sum);
}

double log_normal_cdf(double x) {
  // For x > 0, Phi(x) is close to 1: log1p of the small complement keeps full relative precision.
  if (x > 0.0) return std::log1p(-0.5 * std::erfc(x / M_SQRT2));
  if (x > -20.0) return std::log(0.5 * std::erfc(-x / M_SQRT2));
  // Asymptotic expansion Phi(x) = phi(x)/|x| * (1 - 1/x^2 + 3/x^4 - 15/x^6 + ...); for x <= -20 the
  // terms fall below 1e-17 relative after ten of them.
  const double inv_x2 = 1.0 / (x * x);
  double term = 1.0, series = 1.0;
  for (int k = 1; k <= 12; ++k) {
    term *= -static_cast<double>(2 * k - 1) * inv_x2;
    series += term;
  }
  return -0.5 * x * x - std::log(-x) - 0.5 * std::log(2.0 * M_PI) + std::log(series);
}

double log_normal_interval(double a, double b) {
  if (a >= b) return kNegativeInfinity;
  // Narrow intervals: the difference of two CDF values would cancel. Integrate the density's Taylor series
  // around the midpoint m instead: phi(m) [w + w^3 (m^2 - 1)/24 + w^5 (m^4 - 6 m^2 + 3)/1920]; with
  // w (1 + |m|) <= 1e-4 the omitted term is below 1e-19 relative.
  const double width = b - a, middle = 0.5 * (a + b);
  if (std::isfinite(width) && width * (1.0 + std::abs(middle)) <= 1e-4) {
    const double m2 = middle * middle, w2 = width * width;
    const double series = 1.0 + w2 * (m2 - 1.0) / 24.0 + w2 * w2 * (m2 * m2 - 6.0 * m2 + 3.0) / 1920.0;
    return -0.5 * m2 - 0.5 * std::log(2.0 * M_PI) + std::log(width) + std::log(series);
  }
  if (b <= 0.0) return log_diff_exp(log_normal_cdf(b), log_normal_cdf(a));
  if (a >= 0.0) return log_diff_exp(log_normal_cdf(-a), log_normal_cdf(-b));
  // a < 0 < b: the interval holds the centre. (erf(b/sqrt2) + erf(-a/sqrt2)) / 2 adds two non-negative
  // numbers, so even a narrow interval around 0 keeps full relative precision.
  return std::log(0.5 * (std::erf(b / M_SQRT2) + std::erf(-a / M_SQRT2)));
}

}  // namespace noiselearn
