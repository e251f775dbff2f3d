#include "accounting/fft_power.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include "accounting/exponential_tilt.hpp"
#include "accounting/loss_discretisation.hpp"
#include "accounting/real_fft.hpp"
#include "accounting/vectorised_math.hpp"
#include "core/directed_rounding.hpp"

namespace noiselearn {

namespace {

// ln sum_i x_i e^{theta i}, with the largest exponent factored out (vectorised exponentials).
double log_moment_of(const std::vector<double>& x, double theta) {
  double top = -INFINITY;
  for (size_t i = 0; i < x.size(); ++i)
    if (x[i] > 0.0) top = std::max(top, theta * static_cast<double>(i));
  if (top == -INFINITY) return -INFINITY;
  thread_local std::vector<double> w;
  w.resize(x.size());
  for (size_t i = 0; i < x.size(); ++i) w[i] = theta * static_cast<double>(i) - top;
  exp_in_place(w);
  long double sum = 0.0L;
  for (size_t i = 0; i < x.size(); ++i) sum += x[i] * w[i];
  return static_cast<double>(std::log(sum)) + top;
}

// The theta of a Chernoff bound in [1e-9, 50] (per grid index), by the accountant's golden-section search to 1e-5 in
// log theta (about 30 steps).
double best_theta(const std::function<double(double)>& f) { return minimise_over_log_lambda(f, 1e-9, 50.0, 1e-5); }

// Chernoff's end of the window: the index u (sign +1) above which, or v (sign -1) below which, x^{*n} has mass at most
// e^{log_tail}, u(theta) = (n K(theta) - log_tail) / theta minimised over theta; with the theta it used.
std::pair<double, double> chernoff_end(const std::vector<double>& x, int64_t n, double log_tail, int sign) {
  const double dn = static_cast<double>(n);
  auto end_for = [&](double theta) { return (dn * log_moment_of(x, sign * theta) - log_tail) / theta; };
  const double theta = best_theta(end_for);
  const double end = end_for(theta);
  return {sign > 0 ? end : -end, theta};
}

// The mass of x^{*n} at indices >= end (sign +1) or <= end (sign -1): Chernoff's bound at theta, or minimised over
// theta when theta is 0.
double chernoff_mass(const std::vector<double>& x, int64_t n, double end, int sign, double theta = 0.0) {
  const double dn = static_cast<double>(n);
  auto exponent = [&](double t) { return dn * log_moment_of(x, sign * t) - t * sign * end; };
  if (!(theta > 0.0)) theta = best_theta(exponent);
  return std::min(1.0, std::exp(exponent(theta)) * (1.0 + 1e-10));
}

double norm2(const std::vector<double>& v) {
  long double s = 0.0L;
  for (double x : v) s += static_cast<long double>(x) * x;
  return static_cast<double>(std::sqrt(s));
}

std::complex<double> power(std::complex<double> z, int64_t n) {
  std::complex<double> result(1.0, 0.0);
  bool have = false;
  while (n > 0) {
    if (n & 1) {
      if (have) {
        const double a = result.real(), b = result.imag(), c = z.real(), d = z.imag();
        result = {a * c - b * d, a * d + b * c};
      } else {
        result = z;
        have = true;
      }
    }
    n >>= 1;
    if (n > 0) {
      const double a = z.real(), b = z.imag();
      z = {a * a - b * b, 2.0 * a * b};
    }
  }
  return result;
}

}  // namespace

std::optional<PrivacyLossDistribution> self_compose_by_fft_power(const PrivacyLossDistribution& single, int64_t n,
                                                                 const AccountantOptions& options) {
  if (n < 2 || single.masses.empty()) return std::nullopt;
  const double lambda = single.tilt.lambda > 0.0 ? single.tilt.lambda : 0.0;
  const double h = single.loss_step, dn = static_cast<double>(n);
  const size_t m = single.masses.size();
  // x: the masses, tilted when the PLD is (weights e^{lambda (l_i - r)}).
  std::vector<double> x(single.masses);
  if (lambda > 0.0) {
    std::vector<double> w(m);
    for (size_t i = 0; i < m; ++i) w[i] = lambda * (single.loss(i) - single.tilt.reference);
    exp_in_place(w);
    for (size_t i = 0; i < m; ++i) x[i] *= w[i];
  }
  long double sum = 0.0L;
  for (double v : x) sum += v;
  const double s = static_cast<double>(sum) * (1.0 + 1e-12);  // an upper bound on ||x||_1
  if (!(s > 0.0) || !std::isfinite(s)) return std::nullopt;
  // The window, in index sums J (loss index n first_index + J).
  const double log_tail = std::log(options.tail_mass);
  const auto [u_real, theta_above] = chernoff_end(x, n, log_tail, +1);
  const auto [v_real, theta_below] = chernoff_end(x, n, log_tail, -1);
  if (!std::isfinite(u_real) || !std::isfinite(v_real)) return std::nullopt;
  const int64_t top = static_cast<int64_t>(dn * static_cast<double>(m - 1));
  const int64_t u = std::min<int64_t>(top, static_cast<int64_t>(std::ceil(u_real)));
  const int64_t v = std::max<int64_t>(0, static_cast<int64_t>(std::floor(v_real)));
  if (u < v) return std::nullopt;
  const int64_t width = u - v + 1;
  // A window wider than max_points is transformed whole (up to 8 times max_points) and the result coarsened to fit,
  // as square-and-multiply coarsens its last products.
  if (width > 8 * options.max_points) return std::nullopt;
  int64_t size = 4;
  while (size < std::max<int64_t>(width, static_cast<int64_t>(m))) size *= 2;
  if (!RealFft::supports(size)) return std::nullopt;
  // Mass of x^{*n} outside the window (aliased onto it), at the thetas that chose it.
  const double alias = (u < top ? chernoff_mass(x, n, static_cast<double>(u + 1), +1, theta_above) : 0.0) +
                       (v > 0 ? chernoff_mass(x, n, static_cast<double>(v - 1), -1, theta_below) : 0.0);

  // The transform, the power, the inverse.
  const std::shared_ptr<const RealFft> plan = RealFft::recent_octant(size);
  std::vector<std::complex<double>> spectrum(static_cast<size_t>(size / 2 + 1));
  plan->forward(x.data(), static_cast<int64_t>(m), spectrum.data());
  for (auto& c : spectrum) c = power(c, n);
  std::vector<double> z(static_cast<size_t>(size));
  plan->inverse(spectrum.data(), z.data(), size);

  // Floating-point error (see the header), l2 over the N slots, then l1 over the window.
  const double kappa = roundings(10.0) * std::ceil(std::log2(static_cast<double>(size)));
  const double x2 = norm2(x);
  const double largest_frequency_error = kappa * std::sqrt(static_cast<double>(size)) * x2;
  const double growth = std::exp((dn - 1.0) * std::log(s + largest_frequency_error));  // (S + E)^(n-1)
  const double l2_error =
      dn * growth * x2 * (kappa + roundings(6.0) * (1.0 + kappa)) + kappa * growth * (s + largest_frequency_error);
  const double window_error = std::sqrt(static_cast<double>(width)) * l2_error * (1.0 + 1e-12);

  PrivacyLossDistribution result;
  result.bound = single.bound;
  result.loss_step = h;
  result.compositions = single.compositions * n;
  result.loss_shift = single.loss_shift * dn;
  result.truncated_mass = single.truncated_mass * dn;
  result.first_index = single.first_index * n + v;
  result.masses.resize(static_cast<size_t>(width));
  double zeroed = 0.0;  // tilted values set to zero where untilting would overflow
  for (int64_t j = 0; j < width; ++j) {
    const double value = std::max(0.0, z[static_cast<size_t>((v + j) % size)]);
    result.masses[static_cast<size_t>(j)] = value;
  }
  const double reference = dn * single.tilt.reference;
  if (lambda > 0.0) {
    std::vector<double> w(static_cast<size_t>(width));
    for (int64_t j = 0; j < width; ++j)
      w[static_cast<size_t>(j)] = -lambda * (result.loss(static_cast<size_t>(j)) - reference);
    for (int64_t j = 0; j < width; ++j)
      if (w[static_cast<size_t>(j)] > 700.0) {
        zeroed += result.masses[static_cast<size_t>(j)];
        result.masses[static_cast<size_t>(j)] = 0.0;
        w[static_cast<size_t>(j)] = 0.0;
      }
    exp_in_place(w);
    for (int64_t j = 0; j < width; ++j) result.masses[static_cast<size_t>(j)] *= w[static_cast<size_t>(j)];
  }

  // The release's own errors, composed: relative (1 + r)^n - 1; absolute (S + e)^n - S^n (in x's units).
  result.relative_error = std::expm1(dn * std::log1p(single.relative_error)) * (1.0 + 1e-12);
  auto composed_absolute = [&](double total, double error) {
    if (!(error > 0.0)) return 0.0;
    return std::exp(dn * std::log(total)) * std::expm1(dn * std::log1p(error / total)) * (1.0 + 1e-12);
  };
  const double finite = single.finite_mass() * (1.0 + 1e-12);
  // Infinity mass: omega_n = T^n - F^n (T = F + omega, the total).
  const double total = finite + single.infinity_mass;
  result.infinity_mass = single.infinity_mass > 0.0 ? std::exp(dn * std::log(total)) *
                                                          -std::expm1(dn * std::log1p(-single.infinity_mass / total))
                                                    : 0.0;
  const double input_error = lambda > 0.0 ? single.tilt.error : single.numerical_error;
  const double in_x_units = window_error + alias + composed_absolute(s + input_error, input_error);
  if (lambda > 0.0) {
    result.tilt.lambda = lambda;
    result.tilt.reference = reference;
    result.tilt.error = in_x_units + zeroed;
    // Plain: the window's tilted error untilted (Cauchy-Schwarz with the weights), infinite where they overflow.
    double largest_weight = 0.0;
    for (int64_t j = 0; j < width; ++j)
      largest_weight = std::max(largest_weight, -lambda * (result.loss(static_cast<size_t>(j)) - reference));
    result.numerical_error = largest_weight > 700.0 ? INFINITY : result.tilt.error * std::exp(largest_weight);
    const double d = single.numerical_error + single.relative_error * finite + single.tilt.infinity_error;
    result.tilt.infinity_error =
        dn * std::exp((dn - 1.0) * std::log(total + d)) *
        (2.0 * (single.numerical_error + single.relative_error * finite) + single.tilt.infinity_error) * (1.0 + 1e-12);
  } else {
    result.numerical_error = in_x_units;
  }
  if (single.bound == BoundKind::kUpper) {
    // The plain mass beyond the window: above it counts as infinite loss, below it is moved up onto the first point.
    // For a tilted x the plain masses are x e^{-lambda h i} (times a constant): the window's thetas shifted by lambda h
    // are as good for them (any theta > 0 is rigorous).
    const double shift = lambda * h;
    const double theta_plain_above = theta_above + shift, theta_plain_below = theta_below - shift;
    const double above =
        u < top ? chernoff_mass(single.masses, n, static_cast<double>(u + 1), +1, theta_plain_above) : 0.0;
    const double below = v > 0 ? chernoff_mass(single.masses, n, static_cast<double>(v - 1), -1,
                                               theta_plain_below > 0.0 ? theta_plain_below : 0.0)
                               : 0.0;
    result.infinity_mass += above;
    result.masses.front() += below;
  }
  truncate_tails(result, options.tail_mass);
  while (static_cast<int64_t>(result.masses.size()) > options.max_points) result = coarsen(result, 2, options);
  return result;
}

}  // namespace noiselearn
