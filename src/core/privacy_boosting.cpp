#include "core/privacy_boosting.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/enum_names.hpp"
#include "core/errors.hpp"
#include "core/log_math.hpp"

namespace noiselearn {

constexpr NameTable<BoostingKernelKind, 2> kBoostingKernels{
    {{BoostingKernelKind::kGaussian, "gaussian"}, {BoostingKernelKind::kLaplace, "laplace"}}};
constexpr NameTable<PreferredRegionKind, 3> kPreferredRegions{{{PreferredRegionKind::kInterval, "interval"},
                                                               {PreferredRegionKind::kFixed, "fixed"},
                                                               {PreferredRegionKind::kRelative, "relative"}}};

std::string to_string(BoostingKernelKind kind) { return std::string(name_of(kBoostingKernels, kind)); }

BoostingKernelKind parse_boosting_kernel(const std::string& text) {
  return parse_named(kBoostingKernels, text, "kernel");
}

std::string to_string(PreferredRegionKind kind) { return std::string(name_of(kPreferredRegions, kind)); }

PreferredRegionKind parse_preferred_region(const std::string& text) {
  return parse_named(kPreferredRegions, text, "region");
}

namespace {

constexpr double kLogHalf = -0.69314718055994530942;

// log Pr[X <= x] of the Laplace(b) kernel.
double laplace_log_cdf(double x, double b) {
  if (x < 0.0) return kLogHalf + x / b;
  return std::log1p(-0.5 * std::exp(-x / b));
}

}  // namespace

double normal_quantile(double u) {
  if (!(u > 0.0 && u < 1.0)) throw InputError(fmt::format("normal quantile of {}: must be in (0, 1)", u));
  if (u > 0.5) return -normal_quantile(1.0 - u);
  // Start from the tail approximation x ~ -sqrt(-2 log u) (refined), then Newton on log Phi(x) = log u,
  // whose derivative is phi(x) / Phi(x): quadratic convergence, no cancellation in the lower tail.
  const double target = std::log(u);
  double x = u > 0.3 ? (u - 0.5) * std::sqrt(2.0 * M_PI)
                     : -std::sqrt(-2.0 * target - std::log(-2.0 * target * 2.0 * M_PI) + 1e-300);
  if (!std::isfinite(x)) x = -1.0;
  for (int i = 0; i < 100; ++i) {
    const double log_cdf = log_normal_cdf(x);
    const double log_pdf = -0.5 * x * x - 0.5 * std::log(2.0 * M_PI);
    const double step = (log_cdf - target) * std::exp(log_cdf - log_pdf);
    x -= step;
    if (std::abs(step) <= 1e-15 * std::max(1.0, std::abs(x))) break;
  }
  return x;
}

double BoostingKernel::log_density(double x) const {
  if (kind == BoostingKernelKind::kGaussian)
    return -0.5 * (x / scale) * (x / scale) - std::log(scale * std::sqrt(2.0 * M_PI));
  return -std::abs(x) / scale - std::log(2.0 * scale);
}

double BoostingKernel::log_cdf(double x) const {
  if (kind == BoostingKernelKind::kGaussian) return log_normal_cdf(x / scale);
  return laplace_log_cdf(x, scale);
}

double BoostingKernel::log_interval(double a, double b) const {
  if (!(a < b)) return kNegativeInfinity;
  if (kind == BoostingKernelKind::kGaussian) return log_normal_interval(a / scale, b / scale);
  const double s = scale;
  if (b <= 0.0) return kLogHalf + b / s + log1mexp((b - a) / s);   // (e^{b/s} - e^{a/s}) / 2
  if (a >= 0.0) return kLogHalf - a / s + log1mexp((b - a) / s);   // (e^{-a/s} - e^{-b/s}) / 2
  return std::log1p(-0.5 * (std::exp(a / s) + std::exp(-b / s)));  // 1 - e^{a/s}/2 - e^{-b/s}/2
}

double BoostingKernel::loss(double y, double first, double second) const {
  if (kind == BoostingKernelKind::kGaussian)
    // [(y - second)^2 - (y - first)^2] / (2 sigma^2) = (first - second)(2y - first - second) / (2 sigma^2).
    return (first - second) * (2.0 * y - first - second) / (2.0 * scale * scale);
  return (std::abs(y - second) - std::abs(y - first)) / scale;
}

double BoostingKernel::tail_cut(double tail) const {
  if (!(tail > 0.0 && tail < 0.5)) throw InputError(fmt::format("kernel tail {}: must be in (0, 0.5)", tail));
  if (kind == BoostingKernelKind::kGaussian) return -scale * normal_quantile(tail);
  return -scale * std::log(2.0 * tail);  // Pr[X > x] = e^{-x/b} / 2
}

double BoostingKernel::quantile(double u) const {
  if (kind == BoostingKernelKind::kGaussian) return scale * normal_quantile(u);
  if (!(u > 0.0 && u < 1.0)) throw InputError(fmt::format("Laplace quantile of {}: must be in (0, 1)", u));
  return u < 0.5 ? scale * std::log(2.0 * u) : -scale * std::log(2.0 * (1.0 - u));
}

double BoostingKernel::standard_deviation() const {
  return kind == BoostingKernelKind::kGaussian ? scale : scale * std::sqrt(2.0);
}

std::pair<double, double> PreferredRegion::at(double query) const {
  switch (kind) {
    case PreferredRegionKind::kInterval:
      return {query - tau, query + tau};
    case PreferredRegionKind::kFixed:
      return {lower, upper};
    case PreferredRegionKind::kRelative: {
      const double half = theta * std::abs(query) + tau;
      return {query - half, query + half};
    }
  }
  return {query, query};
}

double PreferredRegion::effective_query(double query) const {
  return kind == PreferredRegionKind::kFixed ? std::clamp(query, lower, upper) : query;
}

double PreferredRegion::least_mass_query() const {
  // Interval: any Q. Relative: the region grows with |Q| and stays centred, so Q = 0. Fixed, symmetric kernel:
  // the kernel centred at an edge keeps the least mass inside (the mass F(upper - Q) - F(lower - Q) is
  // unimodal in Q with its maximum at the centre).
  return kind == PreferredRegionKind::kFixed ? lower : 0.0;
}

double PreferredRegion::smallest_width() const {
  const auto [first, second] = at(least_mass_query());
  return second - first;
}

void PreferredRegion::validate() const {
  auto finite = [](double v) { return std::isfinite(v); };
  if (kind != PreferredRegionKind::kFixed && !(tau > 0.0 && finite(tau)))
    throw InputError(fmt::format("region tau {}: must be positive and finite", tau));
  if (kind == PreferredRegionKind::kRelative && !(theta > 0.0 && theta <= 1.0))
    throw InputError(fmt::format("region theta {}: must be in (0, 1] (theta = 0 is the interval region)", theta));
  if (kind == PreferredRegionKind::kFixed && !(finite(lower) && finite(upper) && lower < upper))
    throw InputError(fmt::format("fixed region [{}, {}]: needs finite lower < upper", lower, upper));
}

double log_region_mass(const BoostingKernel& kernel, const PreferredRegion& region, double query) {
  const auto [first, second] = region.at(query);
  return kernel.log_interval(first - query, second - query);
}

double log_outside_mass(const BoostingKernel& kernel, const PreferredRegion& region, double query) {
  // Below plus above the region; the kernel is symmetric, so Pr[X > x] = Pr[X <= -x].
  const auto [first, second] = region.at(query);
  return log_add_exp(kernel.log_cdf(first - query), kernel.log_cdf(query - second));
}

double boosting_rate(const BoostingKernel& kernel, const PreferredRegion& region, double rho) {
  const double least = region.least_mass_query();
  const double p_inside = std::exp(log_region_mass(kernel, region, least));
  if (rho <= p_inside) return 0.0;
  const double p_outside = std::exp(log_outside_mass(kernel, region, least));
  return std::min(1.0, (rho - p_inside) / (rho * p_outside));
}

PrivacyBoostingMechanism::PrivacyBoostingMechanism(BoostingKernel kernel, PreferredRegion region, double rho)
    : kernel_(kernel), region_(region), rho_(rho), q_(0.0) {
  if (!(kernel_.scale > 0.0 && std::isfinite(kernel_.scale)))
    throw InputError(fmt::format("kernel scale {}: must be positive and finite", kernel_.scale));
  if (!(rho > 0.0 && rho <= 1.0)) throw InputError(fmt::format("rho {}: must be in (0, 1]", rho));
  region_.validate();
  q_ = boosting_rate(kernel_, region_, rho_);
}

double PrivacyBoostingMechanism::log_weight_inside(double query) const {
  const double centre = region_.effective_query(query);
  // 1 / (1 - pbar q), with log1p for the common case of a tiny pbar q.
  return -std::log1p(-std::exp(log_outside_mass(kernel_, region_, centre)) * q_);
}

double PrivacyBoostingMechanism::log_weight_outside(double query) const {
  if (q_ >= 1.0) return kNegativeInfinity;
  return std::log1p(-q_) + log_weight_inside(query);
}

double PrivacyBoostingMechanism::log_density(double y, double query) const {
  const double centre = region_.effective_query(query);
  const auto [first, second] = region_.at(centre);
  const bool inside = y >= first && y <= second;
  return kernel_.log_density(y - centre) + (inside ? log_weight_inside(centre) : log_weight_outside(centre));
}

double PrivacyBoostingMechanism::region_probability(double query) const {
  const double centre = region_.effective_query(query);
  return std::exp(log_region_mass(kernel_, region_, centre) + log_weight_inside(centre));
}

double PrivacyBoostingMechanism::mean_squared_error(double query) const {
  // E[(y - Q)^2] = w_in E_f[X^2; X in S - Q] + w_out E_f[X^2; X outside], where Q is the true (unclamped)
  // answer; for the unclamped cases the error is the noise X itself. Partial second moments of the kernel on
  // [a, b]: Gaussian sigma^2 [Phi - x phi] between a/sigma and b/sigma; Laplace by its closed form.
  const double centre = region_.effective_query(query);
  const auto [first, second] = region_.at(centre);
  const double shift = centre - query;  // nonzero only when a fixed region clamps the answer
  auto partial = [&](double a, double b) {
    // Integral of (x + shift)^2 f(x) over (a, b) = m2 + 2 shift m1 + shift^2 m0.
    double m0 = 0.0, m1 = 0.0, m2 = 0.0;
    if (kernel_.kind == BoostingKernelKind::kGaussian) {
      const double s = kernel_.scale;
      auto phi = [](double z) { return std::isfinite(z) ? std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI) : 0.0; };
      auto zphi = [&](double z) { return std::isfinite(z) ? z * phi(z) : 0.0; };
      const double za = a / s, zb = b / s;
      m0 = std::exp(kernel_.log_interval(a, b));
      m1 = s * (phi(za) - phi(zb));
      m2 = s * s * (m0 - (zphi(zb) - zphi(za)));
    } else {
      const double s = kernel_.scale;
      // Antiderivatives on each side of 0 of f, x f, x^2 f for f = e^{-|x|/s} / (2s).
      auto side = [&](double lo, double hi, bool positive) {
        // For x >= 0 with u = x: F0 = -e^{-u/s}/2, F1 = -(u + s) e^{-u/s}/2, F2 = -(u^2 + 2su + 2s^2) e^{-u/s}/2.
        auto at = [&](double x, int k) {
          if (!std::isfinite(x)) return 0.0;
          const double u = std::abs(x), e = std::exp(-u / s);
          const double value = k == 0   ? -0.5 * e
                               : k == 1 ? -0.5 * (u + s) * e
                                        : -0.5 * (u * u + 2 * s * u + 2 * s * s) * e;
          return value;
        };
        double r[3];
        for (int k = 0; k < 3; ++k) {
          // On the negative side substitute u = -x: the integral of x^k f over (lo, hi) equals (-1)^k times that of
          // u^k f over (-hi, -lo).
          r[k] = positive ? at(hi, k) - at(lo, k) : (k % 2 ? -1.0 : 1.0) * (at(-lo, k) - at(-hi, k));
        }
        m0 += r[0];
        m1 += r[1];
        m2 += r[2];
      };
      if (a < 0.0) side(a, std::min(b, 0.0), false);
      if (b > 0.0) side(std::max(a, 0.0), b, true);
    }
    return m2 + 2.0 * shift * m1 + shift * shift * m0;
  };
  const double inf = std::numeric_limits<double>::infinity();
  const double w_in = std::exp(log_weight_inside(centre));
  const double w_out = q_ >= 1.0 ? 0.0 : std::exp(log_weight_outside(centre));
  return w_in * partial(first - centre, second - centre) +
         w_out * (partial(-inf, first - centre) + partial(second - centre, inf));
}

}  // namespace noiselearn
