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
  // Capped at 0: an entry beyond the last positive one (a zero mass) would overflow, and 0 * inf is NaN.
  for (size_t i = 0; i < x.size(); ++i) w[i] = std::min(theta * static_cast<double>(i) - top, 0.0);
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

// The masses, tilted when the PLD is (weights e^{lambda (l_i - r)}).
std::vector<double> tilted_masses(const PrivacyLossDistribution& single, double lambda) {
  std::vector<double> x(single.masses);
  if (lambda > 0.0) {
    const size_t m = single.masses.size();
    std::vector<double> w(m);
    for (size_t i = 0; i < m; ++i) w[i] = lambda * (single.loss(i) - single.tilt.reference);
    exp_in_place(w);
    for (size_t i = 0; i < m; ++i) x[i] *= w[i];
  }
  return x;
}

// Where x^{*n} is kept: the index sums J in [v, u] (loss index n first_index + J), from Chernoff's bounds at the
// options' tail mass, on a transform of `size` points; `alias` bounds the mass outside it (aliased onto it), at the
// thetas that chose it.
struct PowerWindow {
  int64_t top = 0, u = 0, v = 0, width = 0, size = 0;
  double theta_above = 0.0, theta_below = 0.0, alias = 0.0;
};

std::optional<PowerWindow> power_window(const std::vector<double>& x, int64_t n, const AccountantOptions& options) {
  const size_t m = x.size();
  PowerWindow w;
  const double log_tail = std::log(options.tail_mass);
  const auto [u_real, theta_above] = chernoff_end(x, n, log_tail, +1);
  const auto [v_real, theta_below] = chernoff_end(x, n, log_tail, -1);
  if (!std::isfinite(u_real) || !std::isfinite(v_real)) return std::nullopt;
  w.theta_above = theta_above, w.theta_below = theta_below;
  w.top = static_cast<int64_t>(static_cast<double>(n) * static_cast<double>(m - 1));
  w.u = std::min<int64_t>(w.top, static_cast<int64_t>(std::ceil(u_real)));
  w.v = std::max<int64_t>(0, static_cast<int64_t>(std::floor(v_real)));
  if (w.u < w.v) return std::nullopt;
  w.width = w.u - w.v + 1;
  // A window wider than max_points is transformed whole (up to 8 times max_points) and the result coarsened to fit,
  // as square-and-multiply coarsens its last products.
  if (w.width > 8 * options.max_points) return std::nullopt;
  w.size = 4;
  while (w.size < std::max<int64_t>(w.width, static_cast<int64_t>(m))) w.size *= 2;
  if (!RealFft::supports(w.size)) return std::nullopt;
  w.alias = (w.u < w.top ? chernoff_mass(x, n, static_cast<double>(w.u + 1), +1, theta_above) : 0.0) +
            (w.v > 0 ? chernoff_mass(x, n, static_cast<double>(w.v - 1), -1, theta_below) : 0.0);
  return w;
}

// x^{*n} on `size` points (cyclic): the transform, the power, the inverse; with the window's l1 floating-point error
// (s bounds ||x||_1; see the header), the least of three rigorous bounds:
// - per frequency: the forward transform errs at each frequency by at most E = 2 kappa ||x||_1 (every output is a sum
//   over all inputs through log2 N levels of butterflies a +- w b, each adding at most 10 u of |a| + |b|; the split's
//   coefficients add at most sqrt 2), so the power errs at frequency k by at most F_k = n (|X_k| + E)^(n-1) E +
//   6 n u (|X_k| + E)^n, which is negligible wherever |X_k|^n is (all but about N / window frequencies). The inverse
//   adds at most 4 kappa / N times the spectrum's l1 norm to each point (componentwise, as forward) or 2 kappa / sqrt N
//   times its l2 norm (normwise); the window's l1 error is window times the first, or sqrt(window) times the second;
// - uniform (the bound this file began with): E = kappa sqrt(N) ||x||_2 everywhere, times n (S + E)^(n-1).
struct CyclicPower {
  std::vector<double> z;
  double window_error = 0.0;
};

CyclicPower cyclic_power(const std::vector<double>& x, double s, int64_t n, int64_t size, int64_t width) {
  const std::shared_ptr<const RealFft> plan = RealFft::recent_octant(size);
  std::vector<std::complex<double>> spectrum(static_cast<size_t>(size / 2 + 1));
  plan->forward(x.data(), static_cast<int64_t>(x.size()), spectrum.data());
  const double dn = static_cast<double>(n), dsize = static_cast<double>(size), dwidth = static_cast<double>(width);
  const double kappa = roundings(10.0) * std::ceil(std::log2(dsize));
  const double e = 2.0 * kappa * s;  // per frequency
  const double power_rounding = roundings(6.0) * dn;
  // Sums over the full spectrum (X[N - k] = conj X[k]): the power's error bounds F_k and the powers' moduli. The
  // moduli are taken as sqrt(re^2 + im^2) (within 4 u; an underflowed square only lowers a modulus below E, which is
  // added), a^(n-1) by vectorised logarithms and exponentials (their few ulps move an exponent of at most 745 by a
  // relative 1e-13), and the sums of non-negative terms in double (within N u, paid below).
  const size_t count = spectrum.size(), last = count - 1;
  std::vector<double> moduli(count), grown(count);
  for (size_t k = 0; k < count; ++k) {
    const double re = spectrum[k].real(), im = spectrum[k].imag();
    moduli[k] = std::sqrt(re * re + im * im) * (1.0 + roundings(4.0)) + e;  // >= |X_k| exact, >= |computed|
    grown[k] = moduli[k];
  }
  log_in_place(grown);
  for (double& g : grown) g *= dn - 1.0;
  exp_in_place(grown);  // a^(n-1)
  double f1 = 0.0, f2 = 0.0, y1 = 0.0, y2 = 0.0;
  for (size_t k = 0; k < count; ++k) {
    const double f = (dn * grown[k] * e + power_rounding * grown[k] * moduli[k]) * (1.0 + 1e-10) +
                     std::numeric_limits<double>::min();
    spectrum[k] = power(spectrum[k], n);
    const double re = spectrum[k].real(), im = spectrum[k].imag();
    const double y = std::sqrt(re * re + im * im) * (1.0 + roundings(4.0)) + std::numeric_limits<double>::min();
    const double weight = (k == 0 || k == last) ? 1.0 : 2.0;
    f1 += weight * f, f2 += weight * f * f;
    y1 += weight * y, y2 += weight * y * y;
  }
  const double summed = 1.0 + roundings(dsize + 8.0);
  f1 *= summed, f2 *= summed, y1 *= summed, y2 *= summed;
  const double per_frequency_componentwise = dwidth * (f1 + 4.0 * kappa * y1) / dsize;
  const double per_frequency_normwise = std::sqrt(dwidth / dsize) * (std::sqrt(f2) + 2.0 * kappa * std::sqrt(y2));
  const double x2 = norm2(x);
  const double largest_frequency_error = kappa * std::sqrt(dsize) * x2;
  const double growth = std::exp((dn - 1.0) * std::log(s + largest_frequency_error));  // (S + E)^(n-1)
  const double uniform = std::sqrt(dwidth) * (dn * growth * x2 * (kappa + roundings(6.0) * (1.0 + kappa)) +
                                              kappa * growth * (s + largest_frequency_error));
  CyclicPower out;
  out.z.resize(static_cast<size_t>(size));
  plan->inverse(spectrum.data(), out.z.data(), size);
  out.window_error = std::min({per_frequency_componentwise, per_frequency_normwise, uniform}) * (1.0 + 1e-10);
  return out;
}

// The window's masses, untilted (weights e^{-lambda (l - r)}); where a weight would overflow the mass is set to zero
// and returned (in tilted units) to be paid in the error.
double untilt_window(PrivacyLossDistribution& result, double lambda, double reference) {
  double zeroed = 0.0;
  const size_t width = result.masses.size();
  std::vector<double> w(width);
  for (size_t j = 0; j < width; ++j) w[j] = -lambda * (result.loss(j) - reference);
  for (size_t j = 0; j < width; ++j)
    if (w[j] > 700.0) {
      zeroed += result.masses[j];
      result.masses[j] = 0.0;
      w[j] = 0.0;
    }
  exp_in_place(w);
  for (size_t j = 0; j < width; ++j) result.masses[j] *= w[j];
  return zeroed;
}

// The release's own errors composed into the power's: relative (1 + r)^n - 1; absolute (S + e)^n - S^n (in x's
// units) plus the window's (window_error, the aliased mass included); the infinity mass omega_n = T^n - F^n (T = F +
// omega, the total); in the tilted norm where the PLD is tilted (zeroed: the tilted mass set to zero by untilting).
void compose_release_errors(const PrivacyLossDistribution& single, int64_t n, double lambda, double s,
                            double window_error, double zeroed, PrivacyLossDistribution& result) {
  const double dn = static_cast<double>(n);
  result.relative_error = std::expm1(dn * std::log1p(single.relative_error)) * (1.0 + 1e-12);
  auto composed_absolute = [&](double total, double error) {
    if (!(error > 0.0)) return 0.0;
    return std::exp(dn * std::log(total)) * std::expm1(dn * std::log1p(error / total)) * (1.0 + 1e-12);
  };
  const double finite = single.finite_mass() * (1.0 + 1e-12);
  const double total = finite + single.infinity_mass;
  result.infinity_mass = single.infinity_mass > 0.0 ? std::exp(dn * std::log(total)) *
                                                          -std::expm1(dn * std::log1p(-single.infinity_mass / total))
                                                    : 0.0;
  const double input_error = lambda > 0.0 ? single.tilt.error : single.numerical_error;
  const double in_x_units = window_error + composed_absolute(s + input_error, input_error);
  if (!(lambda > 0.0)) {
    result.numerical_error = in_x_units;
    return;
  }
  result.tilt.lambda = lambda;
  result.tilt.reference = dn * single.tilt.reference;
  result.tilt.error = in_x_units + zeroed;
  // Plain: the window's tilted error untilted (Cauchy-Schwarz with the weights), infinite where they overflow.
  double largest_weight = 0.0;
  for (size_t j = 0; j < result.masses.size(); ++j)
    largest_weight = std::max(largest_weight, -lambda * (result.loss(j) - result.tilt.reference));
  result.numerical_error = largest_weight > 700.0 ? INFINITY : result.tilt.error * std::exp(largest_weight);
  const double d = single.numerical_error + single.relative_error * finite + single.tilt.infinity_error;
  result.tilt.infinity_error =
      dn * std::exp((dn - 1.0) * std::log(total + d)) *
      (2.0 * (single.numerical_error + single.relative_error * finite) + single.tilt.infinity_error) * (1.0 + 1e-12);
}

}  // namespace

std::optional<PrivacyLossDistribution> self_compose_by_fft_power(const PrivacyLossDistribution& single, int64_t n,
                                                                 const AccountantOptions& options, bool coarsen) {
  if (n < 2 || single.masses.empty()) return std::nullopt;
  const double lambda = single.tilt.lambda > 0.0 ? single.tilt.lambda : 0.0;
  const double h = single.loss_step, dn = static_cast<double>(n);
  const std::vector<double> x = tilted_masses(single, lambda);
  long double sum = 0.0L;
  for (double v : x) sum += v;
  const double s = static_cast<double>(sum) * (1.0 + 1e-12);  // an upper bound on ||x||_1
  if (!(s > 0.0) || !std::isfinite(s)) return std::nullopt;
  const std::optional<PowerWindow> window = power_window(x, n, options);
  if (!window) return std::nullopt;
  const PowerWindow& w = *window;
  const CyclicPower powered = cyclic_power(x, s, n, w.size, w.width);
  const std::vector<double>& z = powered.z;
  const double window_error = powered.window_error;

  PrivacyLossDistribution result;
  result.bound = single.bound;
  result.loss_step = h;
  result.compositions = single.compositions * n;
  result.loss_shift = single.loss_shift * dn;
  result.truncated_mass = single.truncated_mass * dn;
  result.first_index = single.first_index * n + w.v;
  result.masses.resize(static_cast<size_t>(w.width));
  for (int64_t j = 0; j < w.width; ++j)
    result.masses[static_cast<size_t>(j)] = std::max(0.0, z[static_cast<size_t>((w.v + j) % w.size)]);
  const double reference = dn * single.tilt.reference;
  const double zeroed = lambda > 0.0 ? untilt_window(result, lambda, reference) : 0.0;
  compose_release_errors(single, n, lambda, s, window_error + w.alias, zeroed, result);
  if (single.bound == BoundKind::kUpper) {
    // The plain mass beyond the window: above it counts as infinite loss, below it is moved up onto the first point.
    // For a tilted x the plain masses are x e^{-lambda h i} (times a constant): the window's thetas shifted by lambda h
    // are as good for them (any theta > 0 is rigorous).
    const double shift = lambda * h;
    const double theta_plain_above = w.theta_above + shift, theta_plain_below = w.theta_below - shift;
    const double above =
        w.u < w.top ? chernoff_mass(single.masses, n, static_cast<double>(w.u + 1), +1, theta_plain_above) : 0.0;
    const double below = w.v > 0 ? chernoff_mass(single.masses, n, static_cast<double>(w.v - 1), -1,
                                                 theta_plain_below > 0.0 ? theta_plain_below : 0.0)
                                 : 0.0;
    result.infinity_mass += above;
    result.masses.front() += below;
  }
  truncate_tails(result, options.tail_mass);
  while (coarsen && static_cast<int64_t>(result.masses.size()) > options.max_points)
    result = noiselearn::coarsen(result, 2, options);
  return result;
}

}  // namespace noiselearn
