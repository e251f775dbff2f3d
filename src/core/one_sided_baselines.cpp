#include "core/one_sided_baselines.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/baselines.hpp"
#include "core/errors.hpp"
#include "core/grid.hpp"
#include "core/log_math.hpp"

namespace noiselearn {

namespace {

void require_epsilon_delta(double epsilon, double delta) {
  if (!(epsilon > 0.0) || !(epsilon <= 700.0))
    throw InputError(fmt::format("epsilon {} must lie in (0, 700] (e^epsilon must be a finite float64)", epsilon));
  if (!(delta > 0.0 && delta < 1.0)) throw InputError(fmt::format("delta {} must lie in (0, 1)", delta));
}

// 1 - e^-x sum_{j<=n} x^j / j! (the regularised lower incomplete gamma P(n + 1, x)), without the cancellation of
// that difference for small x: there the series e^-x sum_{k>n} x^k / k!.
double lower_gamma_regularised(int n, double x) {
  if (x <= 0.0) return 0.0;
  if (x < 1.0) {
    double term = 1.0;
    for (int k = 1; k <= n; ++k) term *= x / k;  // x^n / n!
    double sum = 0.0;
    for (int k = n + 1; k < n + 60; ++k) {
      term *= x / k;
      sum += term;
      if (term < 1e-18 * sum) break;
    }
    return std::exp(-x) * sum;
  }
  double partial = 0.0, term = 1.0;
  for (int j = 0; j <= n; ++j) {
    if (j > 0) term *= x / j;
    partial += term;
  }
  return -std::expm1(-x) - (std::exp(-x) * partial - std::exp(-x));
}

}  // namespace

namespace {

void require_one_sided_grid(const Grid& grid) {
  grid.validate();
  if (std::abs(grid.origin) > kGridRelativeTolerance * grid.step)
    throw InputError(fmt::format("a one-sided baseline needs a grid starting at 0, not {}", grid.origin));
}

}  // namespace

// ---- Thm 1 ----

SingleReleaseOptimum single_release_optimum_at(double epsilon, double delta, int64_t omega) {
  require_epsilon_delta(epsilon, delta);
  if (omega < 1) throw InputError(fmt::format("the turning point omega = {} must be at least 1", omega));
  SingleReleaseOptimum out;
  out.epsilon = epsilon;
  out.delta = delta;
  const double w = static_cast<double>(omega);
  // Appendix B: with omega' = 2 omega the sum is delta (e^(eps omega) - 1) / (e^eps - 1) + delta c (e^(eps (omega+1)) -
  // 1) / (e^eps - 1) = 1; with omega' = 2 omega - 1 the second sum loses its last term, e^0.
  const double numerator = std::expm1(epsilon) - std::expm1(epsilon * w) * delta;
  double c = numerator / (std::expm1(epsilon * (w + 1.0)) * delta);
  int64_t omega_prime = 2 * omega;
  if (c < std::exp(-2.0 * epsilon)) {
    omega_prime = 2 * omega - 1;
    c = numerator / (std::exp(epsilon) * std::expm1(epsilon * w) * delta);
  }
  if (!(c > 0.0) || !std::isfinite(c))
    throw InputError(
        fmt::format("epsilon {} and delta {}: no valid normaliser at omega = {} (c = {})", epsilon, delta, omega, c));
  out.omega = omega;
  out.omega_prime = omega_prime;
  out.c = c;
  std::vector<double> p(static_cast<size_t>(omega_prime + 1));
  const double log_delta = std::log(delta), log_c = std::log(c);
  for (int64_t i = 0; i <= omega_prime; ++i) {
    const double x = static_cast<double>(i);
    p[static_cast<size_t>(i)] =
        std::exp(i < omega ? log_delta + epsilon * x : log_delta + log_c + epsilon * (2.0 * w - x));
  }
  out.probabilities = std::move(p);
  return out;
}

NoiseTable SingleReleaseOptimum::table() const {
  TableProvenance provenance;
  provenance.source = "baseline one-sided-optimum";
  provenance.parameters = {{"epsilon", epsilon},
                           {"delta", delta},
                           {"omega", static_cast<double>(omega)},
                           {"omega_prime", static_cast<double>(omega_prime)},
                           {"c", c}};
  if (omega_real > 0.0) provenance.parameters["omega_real"] = omega_real;
  provenance.note =
      "Xiao et al. Thm 1 (eq. 16-17, omega = ceil(omega_real) as corrected), sensitivity 1 on the integers";
  return NoiseTable(Grid::spanning(0.0, static_cast<double>(omega_prime), 1.0), probabilities, SupportKind::kOneSided,
                    provenance);
}

SingleReleaseOptimum single_release_optimum(double epsilon, double delta) {
  require_epsilon_delta(epsilon, delta);
  // eq. 17 in log space: omega_real = (1/eps) ln((2 delta + e^eps - 1) / (delta (e^eps + 1))).
  const double omega_real =
      (std::log(2.0 * delta + std::expm1(epsilon)) - std::log(delta) - std::log1p(std::exp(epsilon))) / epsilon;
  const int64_t omega = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(omega_real)));
  SingleReleaseOptimum out = single_release_optimum_at(epsilon, delta, omega);
  out.omega_real = omega_real;
  if (!(out.c >= std::exp(-2.0 * epsilon) * (1.0 - 1e-12) && out.c <= 1.0 + 1e-12))
    throw InputError(fmt::format("epsilon {} and delta {}: Thm 1's normaliser c = {} falls outside [e^(-2 eps), 1]",
                                 epsilon, delta, out.c));
  return out;
}

// ---- TBL ----

void TruncatedBiasedLaplace::validate() const {
  if (!(lambda > 0.0) || !std::isfinite(lambda))
    throw InputError(fmt::format("TBL scale lambda {} must be positive", lambda));
  if (!(range > 0.0) || !std::isfinite(range)) throw InputError(fmt::format("TBL range {} must be positive", range));
  if (!(mu >= 0.0 && mu <= range))
    throw InputError(fmt::format("TBL shift mu {} must lie in [0, range = {}]", mu, range));
}

namespace {

// int_0^a t^n e^(-t/lambda) dt = lambda^(n+1) n! P(n + 1, a / lambda).
double moment_integral(int n, double a, double lambda) {
  const double factorial = n == 2 ? 2.0 : 1.0;
  return std::pow(lambda, n + 1) * factorial * lower_gamma_regularised(n, a / lambda);
}

}  // namespace

double TruncatedBiasedLaplace::normaliser() const {
  return moment_integral(0, mu, lambda) + moment_integral(0, range - mu, lambda);
}

// int over [lo, hi] of exp(-|z - mu| / lambda), piecewise so that no two close numbers are subtracted.
static double tbl_integral(const TruncatedBiasedLaplace& t, double lo, double hi) {
  lo = std::max(lo, 0.0);
  hi = std::min(hi, t.range);
  if (!(hi > lo)) return 0.0;
  const auto one_side = [&](double near, double far) {  // distances from mu, near <= far, same side
    return t.lambda * std::exp(-near / t.lambda) * -std::expm1(-(far - near) / t.lambda);
  };
  if (hi <= t.mu) return one_side(t.mu - hi, t.mu - lo);
  if (lo >= t.mu) return one_side(lo - t.mu, hi - t.mu);
  return one_side(0.0, t.mu - lo) + one_side(0.0, hi - t.mu);
}

double TruncatedBiasedLaplace::mass_below(double x) const { return tbl_integral(*this, 0.0, x) / normaliser(); }

double TruncatedBiasedLaplace::mean() const {
  const double a = mu, b = range - mu;
  return (mu * moment_integral(0, a, lambda) - moment_integral(1, a, lambda) + mu * moment_integral(0, b, lambda) +
          moment_integral(1, b, lambda)) /
         normaliser();
}

double TruncatedBiasedLaplace::second_moment() const {
  // z = mu - t on the left (t in [0, mu]), z = mu + t on the right (t in [0, range - mu]).
  const double a = mu, b = range - mu;
  const double left = mu * mu * moment_integral(0, a, lambda) - 2.0 * mu * moment_integral(1, a, lambda) +
                      moment_integral(2, a, lambda);
  const double right = mu * mu * moment_integral(0, b, lambda) + 2.0 * mu * moment_integral(1, b, lambda) +
                       moment_integral(2, b, lambda);
  return (left + right) / normaliser();
}

double TruncatedBiasedLaplace::distinguishing_mass(double s) const {
  const double z = normaliser();
  return std::max(tbl_integral(*this, 0.0, s), tbl_integral(*this, range - s, range)) / z;
}

NoiseTable TruncatedBiasedLaplace::table(double step) const {
  validate();
  const int64_t cells = whole_steps(range, step, fmt::format("TBL range {}", range));
  // Whole cells [x_i - h/2, x_i + h/2) of the density e^(-|z - mu| / lambda), the outermost ones reaching half a
  // step beyond [0, range] (as the symmetric truncated families do). Half end cells would carry half the mass of
  // their neighbours and give a shift by s a loss of s/lambda + ln 2 there.
  TruncatedBiasedLaplace extended = *this;
  extended.mu = mu + 0.5 * step;
  extended.range = range + step;
  std::vector<double> p(static_cast<size_t>(cells + 1));
  double total = 0.0;
  for (int64_t i = 0; i <= cells; ++i) {
    const double lo = static_cast<double>(i) * step;  // in the extended law's coordinates: [i h, (i + 1) h)
    total += p[static_cast<size_t>(i)] = tbl_integral(extended, lo, lo + step);
  }
  for (double& v : p) v /= total;
  TableProvenance provenance;
  provenance.source = "baseline tbl";
  provenance.parameters = {{"mu", mu}, {"lambda", lambda}, {"range", range}};
  provenance.note =
      "Xiao et al. Def. 4: truncated biased Laplace, mass of the cells [x - h/2, x + h/2) of the grid on [0, range]";
  return NoiseTable(Grid::spanning(0.0, static_cast<double>(cells) * step, step), std::move(p), SupportKind::kOneSided,
                    provenance);
}

double tbl_exact_minimal_shift(double epsilon, double delta, double sensitivity) {
  require_epsilon_delta(epsilon, delta);
  if (!(sensitivity > 0.0) || !std::isfinite(sensitivity))
    throw InputError(fmt::format("sensitivity {} must be positive", sensitivity));
  return sensitivity / epsilon * std::log1p(std::expm1(epsilon) / (2.0 * delta));
}

TruncatedBiasedLaplace calibrated_tbl(double epsilon, double delta, double sensitivity) {
  const double mu = tbl_exact_minimal_shift(epsilon, delta, sensitivity);
  return TruncatedBiasedLaplace{mu, sensitivity / epsilon, 2.0 * mu};
}

double tbl_lemma1_shift(double epsilon, double delta, double sensitivity) {
  require_epsilon_delta(epsilon, delta);
  const double s = sensitivity;
  // h(mu) = mu - s - (s/eps) ln(1 / (2 delta (1 - e^(-mu eps/s)))) is increasing in mu; bisect its root.
  const auto h = [&](double mu) {
    return mu - s + s / epsilon * (std::log(2.0 * delta) + std::log(-std::expm1(-mu * epsilon / s)));
  };
  double lo = s * 1e-12, hi = s;
  while (h(hi) < 0.0) hi *= 2.0;
  for (int k = 0; k < 200 && hi - lo > 1e-15 * hi; ++k) {
    const double mid = 0.5 * (lo + hi);
    (h(mid) < 0.0 ? lo : hi) = mid;
  }
  return hi;
}

// ---- TBG ----

void TruncatedBiasedGaussian::validate() const {
  if (!(lambda > 0.0) || !std::isfinite(lambda))
    throw InputError(fmt::format("TBG scale lambda {} must be positive", lambda));
  if (!(range > 0.0) || !std::isfinite(range)) throw InputError(fmt::format("TBG range {} must be positive", range));
  if (!(mu >= 0.0 && mu <= range))
    throw InputError(fmt::format("TBG shift mu {} must lie in [0, range = {}]", mu, range));
}

namespace {

struct TruncatedNormalTerms {
  double a, b, phi_a, phi_b, mass;  // mass = Phi(b) - Phi(a), without cancellation
};

TruncatedNormalTerms truncated_normal_terms(const TruncatedBiasedGaussian& t) {
  t.validate();
  TruncatedNormalTerms r;
  r.a = -t.mu / t.lambda;
  r.b = (t.range - t.mu) / t.lambda;
  const double inv_sqrt_2pi = 0.3989422804014327;
  r.phi_a = inv_sqrt_2pi * std::exp(-0.5 * r.a * r.a);
  r.phi_b = inv_sqrt_2pi * std::exp(-0.5 * r.b * r.b);
  // Phi(b) - Phi(a) with a <= 0 <= b: (erf(b/sqrt 2) - erf(a/sqrt 2)) / 2, both terms of the same sign or small.
  r.mass = 0.5 * (std::erf(r.b / std::sqrt(2.0)) - std::erf(r.a / std::sqrt(2.0)));
  return r;
}

}  // namespace

double TruncatedBiasedGaussian::mean() const {
  const TruncatedNormalTerms r = truncated_normal_terms(*this);
  return mu + lambda * (r.phi_a - r.phi_b) / r.mass;
}

double TruncatedBiasedGaussian::second_moment() const {
  const TruncatedNormalTerms r = truncated_normal_terms(*this);
  const double shift = (r.phi_a - r.phi_b) / r.mass;
  const double variance = lambda * lambda * (1.0 + (r.a * r.phi_a - r.b * r.phi_b) / r.mass - shift * shift);
  const double m = mu + lambda * shift;
  return variance + m * m;
}

NoiseTable TruncatedBiasedGaussian::table(double step) const {
  validate();
  const int64_t cells = whole_steps(range, step, fmt::format("TBG range {}", range));
  std::vector<double> log_p(static_cast<size_t>(cells + 1));
  for (int64_t i = 0; i <= cells; ++i)
    log_p[static_cast<size_t>(i)] = log_gaussian_cell_mass(static_cast<double>(i) * step - mu, step, lambda);
  const double log_z = log_sum_exp(log_p);
  std::vector<double> p(log_p.size());
  for (size_t i = 0; i < p.size(); ++i) p[i] = std::exp(log_p[i] - log_z);
  TableProvenance provenance;
  provenance.source = "baseline tbg";
  provenance.parameters = {{"mu", mu}, {"lambda", lambda}, {"range", range}};
  provenance.note =
      "Xiao et al. Def. 5: truncated biased Gaussian, mass of the cells [x - h/2, x + h/2) of the grid on [0, range]";
  return NoiseTable(Grid::spanning(0.0, static_cast<double>(cells) * step, step), std::move(p), SupportKind::kOneSided,
                    provenance);
}

NoiseTable tbg_table(const Grid& grid, double mu, double lambda) {
  require_one_sided_grid(grid);
  return TruncatedBiasedGaussian{mu, lambda, grid.last()}.table(grid.step);
}

// ---- Discrete TBL ----

NoiseTable discrete_tbl_table(int64_t range, double mu, double sigma) {
  if (range < 1 || range >= kMaxGridPoints)
    throw InputError(fmt::format("discrete TBL range {} must lie in 1 .. {}", range, kMaxGridPoints - 1));
  return discrete_tbl_table(Grid::spanning(0.0, static_cast<double>(range), 1.0), mu, sigma);
}

NoiseTable discrete_tbl_table(const Grid& grid, double mu, double sigma) {
  require_one_sided_grid(grid);
  const double range = grid.last();
  if (!(sigma > 0.0) || !std::isfinite(sigma))
    throw InputError(fmt::format("discrete TBL scale sigma {} must be positive", sigma));
  if (!(mu >= 0.0 && mu <= range))
    throw InputError(fmt::format("discrete TBL shift mu {} must lie in [0, {}]", mu, range));
  std::vector<double> log_p(static_cast<size_t>(grid.size));
  for (int64_t j = 0; j < grid.size; ++j) log_p[static_cast<size_t>(j)] = -std::abs(grid.x(j) - mu) / sigma;
  const double log_z = log_sum_exp(log_p);
  std::vector<double> p(log_p.size());
  for (size_t j = 0; j < p.size(); ++j) p[j] = std::exp(log_p[j] - log_z);
  TableProvenance provenance;
  provenance.source = "baseline discrete-tbl";
  provenance.parameters = {{"range", range}, {"mu", mu}, {"sigma", sigma}};
  provenance.note = "discrete truncated biased Laplace p(x) ~ exp(-|x - mu| / sigma) on the grid points of [0, range]";
  return NoiseTable(grid, std::move(p), SupportKind::kOneSided, provenance);
}

NoiseTable one_sided_optimum_table(const Grid& grid, double epsilon, double delta) {
  require_one_sided_grid(grid);
  const SingleReleaseOptimum o = single_release_optimum(epsilon, delta);
  if (grid.size - 1 < o.omega_prime)
    throw InputError(
        fmt::format("--range {} is too short for the one-sided optimum of epsilon {} and delta {}: it needs "
                    "omega' = {} steps, up to {}",
                    grid.last(), epsilon, delta, o.omega_prime, static_cast<double>(o.omega_prime) * grid.step));
  std::vector<double> p(static_cast<size_t>(grid.size), 0.0);
  std::copy(o.probabilities.begin(), o.probabilities.end(), p.begin());
  NoiseTable table = o.table();
  TableProvenance provenance = table.provenance();
  provenance.parameters["sensitivity"] = grid.step;
  provenance.note += fmt::format(", scaled to sensitivity {} (one grid step)", grid.step);
  return NoiseTable(grid, std::move(p), SupportKind::kOneSided, provenance);
}

NoiseTable tbl_table(const Grid& grid, double mu, double lambda) {
  require_one_sided_grid(grid);
  return TruncatedBiasedLaplace{mu, lambda, grid.last()}.table(grid.step);
}

DiscreteTblCalibration calibrated_discrete_tbl(double epsilon, double delta) {
  require_epsilon_delta(epsilon, delta);
  // p_0 = e^(-eps mu) / Z with mu = R/2; Z in closed form: R = 2m: 1 + 2 e^-eps (1 - e^(-eps m)) / (1 - e^-eps);
  // R = 2m + 1: 2 e^(-eps/2) (1 - e^(-eps (m + 1))) / (1 - e^-eps).
  const double q = -std::expm1(-epsilon);
  for (int64_t r = 1; r < 10'000'000; ++r) {
    const int64_t m = r / 2;
    const double z = r % 2 == 0 ? 1.0 + 2.0 * std::exp(-epsilon) * -std::expm1(-epsilon * m) / q
                                : 2.0 * std::exp(-0.5 * epsilon) * -std::expm1(-epsilon * (m + 1)) / q;
    const double p0 = std::exp(-epsilon * 0.5 * static_cast<double>(r)) / z;
    if (p0 <= delta) {
      DiscreteTblCalibration out;
      out.range = r;
      out.mu = 0.5 * static_cast<double>(r);
      out.sigma = 1.0 / epsilon;
      return out;
    }
  }
  throw InputError(
      fmt::format("epsilon {} and delta {}: no discrete TBL with range below 10^7 reaches delta", epsilon, delta));
}

}  // namespace noiselearn
