#include "accounting/closed_forms.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/directed_rounding.hpp"
#include "core/errors.hpp"
#include "core/log_math.hpp"
#include "core/monotone_search.hpp"

namespace noiselearn {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// An absolute bound on the error of log_normal_cdf(x) for x given exactly. Each branch (core/log_math.cpp) evaluates
// erfc or an asymptotic series: erfc's own error (within 8 ulp = 16 u relative, glibc's documented maximum being
// lower), the rounding of its argument x / sqrt(2) (which moves erfc by 2 t^2 u relative at t = |x| / sqrt(2), that is
// x^2 u), and the roundings of the logarithm and the sums (a few u times |log Phi(x)| <= x^2 / 2 + 3) stay below
// 64 u (1 + x^2) in every branch.
double log_normal_cdf_error(double x) { return roundings(64.0) * (1.0 + x * x); }

// How fast log Phi moves at x: phi(x) / Phi(x) < |x| + 1 for x < 0 (the inverse Mills ratio), < 0.8 for x >= 0.
double log_normal_cdf_slope(double x) { return x < 0.0 ? -x + 1.0 : 1.0; }

}  // namespace

GaussianMu composed_gaussian_mu(const std::vector<GaussianReleases>& releases) {
  if (releases.empty()) throw InputError("a composition of Gaussian releases needs at least one");
  double sum = 0.0;
  for (const auto& r : releases) {
    if (!(r.noise_multiplier > 0.0 && std::isfinite(r.noise_multiplier)))
      throw InputError(fmt::format("Gaussian noise multiplier {} must be positive and finite", r.noise_multiplier));
    sum += r.releases * r.coordinates / (r.noise_multiplier * r.noise_multiplier);
  }
  if (!std::isfinite(sum))
    throw InputError(
        "the Gaussian releases compose to mu beyond the largest double (noise multipliers near 0): no finite epsilon "
        "can be certified; raise the noise multipliers");
  // Each term has 3 roundings, the sum of k non-negative terms k - 1 more (Higham eq. 3.4); a term that underflows
  // errs by less than the least subnormal instead, k of them added on both sides. The square root halves the relative
  // error and adds one rounding. k + 8 covers them with room.
  const auto k = static_cast<double>(releases.size());
  const double gamma = roundings(k + 8.0), underflow = (k + 1.0) * std::numeric_limits<double>::denorm_min();
  return {lowered_by(std::sqrt(std::max(0.0, lowered_by(sum, gamma) - underflow)), gamma),
          raised_by(std::sqrt(raised_by(sum, gamma) + underflow), gamma)};
}

RoundedDelta gaussian_delta(double mu, double epsilon) {
  if (!(mu > 0.0)) return {-kInfinity, 0.0, -kInfinity};
  // delta = Phi(a) - e^eps Phi(b) = e^{L1} (1 - e^D) with L1 = log Phi(a), L2 = eps + log Phi(b), D = L2 - L1 < 0.
  const double ratio = epsilon / mu, a = -ratio + mu / 2.0, b = -ratio - mu / 2.0;
  // Below -1e150 (ln Phi's range, core/log_math.hpp) Phi(a) < e^{-a^2/2} is far below the least subnormal, and so is
  // delta: its upper end is that subnormal (exp_up), its lower 0.
  if (a < -1e150) return {-kInfinity, 0.0, -kInfinity};
  const double l1 = log_normal_cdf(a), log_phi_b = log_normal_cdf(b), l2 = epsilon + log_phi_b, d = l2 - l1;
  // Errors of a and b (a division, a halving, a subtraction), then of L1, L2 and D, all absolute.
  const double argument_error = roundings(4.0) * (ratio + mu / 2.0);
  const double e1 = log_normal_cdf_error(a) + log_normal_cdf_slope(a) * argument_error;
  const double e2 = log_normal_cdf_error(b) + log_normal_cdf_slope(b) * argument_error +
                    roundings(2.0) * (epsilon + std::abs(log_phi_b));
  const double ed = e1 + e2 + roundings(1.0) * std::abs(d);
  if (!(d + ed < 0.0)) return {-kInfinity, kInfinity, l1 + e1};
  // log(1 - e^D) moves by at most ed / (e^{-(D + ed)} - 1) over [D - ed, D + ed]; the logarithm, the sum and expm1 add
  // a few roundings of the terms' size.
  const double log_difference = std::log(-std::expm1(d)), log_value = l1 + log_difference;
  const double log_error =
      e1 + ed / std::expm1(-(d + ed)) + roundings(8.0) * (1.0 + std::abs(l1) + std::abs(log_difference));
  return {log_value, log_error, l1 + e1};
}

namespace {

// e^x rounded up and down: exp errs by at most an ulp of a normal result (2 u relative) and by half the least
// subnormal below the normal range, so a relative 4 u and one least subnormal cover both.
double exp_up(double x) { return raised_by(std::exp(x), roundings(4.0)) + std::numeric_limits<double>::denorm_min(); }
double exp_down(double x) {
  return std::max(0.0, lowered_by(std::exp(x), roundings(4.0)) - std::numeric_limits<double>::denorm_min());
}

}  // namespace

ClosedFormBounds gaussian_closed_form(GaussianMu mu) {
  ClosedFormBounds bounds;
  bounds.method = "closed form (Balle and Wang 2018, Gaussian)";
  bounds.delta = [mu](double epsilon) {
    DeltaInterval interval;
    // delta grows with mu: the upper end from mu's upper end, the lower from its lower end.
    const RoundedDelta high = gaussian_delta(mu.upper, epsilon), low = gaussian_delta(mu.lower, epsilon);
    // Phi(a) alone bounds delta from above, whatever the cancellation in the difference.
    const double phi_a = exp_up(high.log_phi_a_upper);
    const double from_formula = std::isfinite(high.log_error) ? exp_up(high.log_value + high.log_error) : kInfinity;
    interval.upper = std::min({1.0, phi_a, from_formula});
    interval.lower = std::isfinite(low.log_error) ? exp_down(low.log_value - low.log_error) : 0.0;
    interval.lower = std::min(interval.lower, interval.upper);
    return interval;
  };
  return bounds;
}

ClosedFormBounds laplace_closed_form(double scale, double sensitivity) {
  if (!(scale > 0.0 && std::isfinite(scale) && sensitivity > 0.0 && std::isfinite(sensitivity)))
    throw InputError(
        fmt::format("Laplace scale {} and sensitivity {} must be positive and finite", scale, sensitivity));
  // a = s / b with one rounding: the exact a lies in [a (1 - u), a (1 + u)], widened to 2 u.
  const double a = sensitivity / scale;
  const double a_low = lowered_by(a, roundings(2.0)), a_high = raised_by(a, roundings(2.0));
  ClosedFormBounds bounds;
  bounds.method = "closed form (Laplace, single release)";
  bounds.delta = [a_low, a_high](double epsilon) {
    // delta = -expm1((eps - a) / 2), decreasing in (eps - a): the upper end from a's upper end with the exponent
    // rounded down, the lower end from a's lower end with it rounded up (the subtraction's one rounding, doubled).
    const double x_high = (epsilon - a_high) / 2.0, x_low = (epsilon - a_low) / 2.0;
    DeltaInterval interval;
    interval.upper =
        std::clamp(raised_by(-std::expm1(x_high - roundings(2.0) * std::abs(x_high)), roundings(4.0)), 0.0, 1.0);
    interval.lower = std::clamp(lowered_by(-std::expm1(x_low + roundings(2.0) * std::abs(x_low)), roundings(4.0)), 0.0,
                                interval.upper);
    return interval;
  };
  return bounds;
}

namespace {

// Where a decreasing delta curve falls to `target`, to adjacent doubles: curve(low) > target >= curve(high); [0, 0]
// when curve(0) is at most the target already, high infinite when no eps up to 2^1000 brings it there.
Bracket where_curve_falls_to(const std::function<double(double)>& curve, double target) {
  if (!(curve(0.0) > target)) return {0.0, 0.0};
  double high = 1.0;
  while (curve(high) > target) {
    if (high > 1e300) return {high, kInfinity};
    high *= 2.0;
  }
  return bisect(
      {high >= 2.0 ? high / 2.0 : 0.0, high}, [&](double e) { return curve(e) > target; },
      [](double, double) { return true; });
}

}  // namespace

double ClosedFormBounds::epsilon_upper(double target) const {
  return where_curve_falls_to([this](double e) { return delta_upper(e); }, target).high;
}

double ClosedFormBounds::epsilon_lower(double target) const {
  return where_curve_falls_to([this](double e) { return delta_lower(e); }, target).low;
}

}  // namespace noiselearn
