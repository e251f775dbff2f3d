#include "models/geometric_tail_family.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/errors.hpp"
#include "core/log_math.hpp"

namespace noiselearn {

std::string to_string(FamilyDomain domain) { return domain == FamilyDomain::kContinuous ? "continuous" : "discrete"; }

FamilyDomain parse_family_domain(const std::string& text) {
  if (text == "continuous") return FamilyDomain::kContinuous;
  if (text == "discrete") return FamilyDomain::kDiscrete;
  throw InputError(fmt::format("model.domain '{}' is not one of: continuous, discrete", text));
}

void GeometricTailShape::validate() const {
  if (window < 1) throw InputError(fmt::format("model.window {} must be at least 1", window));
  if (!(ratio > 0.0 && ratio < 1.0)) throw InputError(fmt::format("model.tail_ratio {} must lie in (0, 1)", ratio));
  if (!(bin_width > 0.0) || !std::isfinite(bin_width))
    throw InputError(fmt::format("model.bin_width {} must be finite and > 0", bin_width));
  if (domain == FamilyDomain::kDiscrete && bin_width != 1.0)
    throw InputError(
        fmt::format("model.bin_width {} must be 1 for the discrete family (its bins are the integers)", bin_width));
}

std::string to_string(CostKind kind) {
  switch (kind) {
    case CostKind::kSquare:
      return "square";
    case CostKind::kAbsolute:
      return "absolute";
    case CostKind::kExceedance:
      return "exceedance";
  }
  return "square";
}

CostKind parse_cost_kind(const std::string& text) {
  if (text == "square") return CostKind::kSquare;
  if (text == "absolute") return CostKind::kAbsolute;
  if (text == "exceedance") return CostKind::kExceedance;
  throw InputError(fmt::format("model.cost '{}' is not one of: square, absolute, exceedance", text));
}

void CostSpecification::validate() const {
  if (kind == CostKind::kExceedance && (!(threshold >= 0.0) || !std::isfinite(threshold)))
    throw InputError(fmt::format("model.cost_threshold {} must be finite and >= 0", threshold));
}

double geometric_square_series(int64_t window, double ratio) {
  // sum_k r^k (N + k)^2 = N^2 / (1 - r) + 2 N r / (1 - r)^2 + r (1 + r) / (1 - r)^3. This equals eq. 50
  // algebraically, but eq. 50's numerator r^2 (N-1)^2 + N^2 (1 - 2r) + r (2N + 1) cancels: at N = 2000,
  // r = 0.9999 its terms are ~4e6 and the sum ~2.4, so 6 of the 16 digits would be lost. Here every term is
  // positive.
  const double n = static_cast<double>(window), q = 1.0 - ratio;
  return n * n / q + 2.0 * n * ratio / (q * q) + ratio * (1.0 + ratio) / (q * q * q);
}

namespace {

// sum_k r^k (N + k) = N / (1 - r) + r / (1 - r)^2.
double geometric_linear_series(int64_t window, double ratio) {
  const double q = 1.0 - ratio;
  return static_cast<double>(window) / q + ratio / (q * q);
}

// Fraction of the continuous bin i (interval ((i - 1/2) Delta, (i + 1/2) Delta)) where |z| > tau; t = tau / Delta.
double exceedance_fraction(int64_t i, double t) {
  if (i == 0) return std::clamp(1.0 - 2.0 * t, 0.0, 1.0);  // the centred bin: |z| > tau on 2 (Delta/2 - tau)
  return std::clamp(static_cast<double>(i) + 0.5 - t, 0.0, 1.0);
}

// The discrete indicator i > tau, with the grid tolerance of core/utility.cpp's tail_probability (a point at
// tau up to rounding is inside).
bool discrete_exceeds(int64_t i, double tau) { return static_cast<double>(i) > tau + 1e-9; }

// A_i of eq. 20 (continuous: average of c over bin i) or c(i) (discrete), for 0 <= i < N.
double bin_cost(const GeometricTailShape& shape, const CostSpecification& cost, int64_t i) {
  const double d = shape.bin_width, x = static_cast<double>(i);
  const bool continuous = shape.domain == FamilyDomain::kContinuous;
  switch (cost.kind) {
    case CostKind::kSquare:
      return continuous ? d * d * (x * x + 1.0 / 12.0) : x * x;  // eq. 45
    case CostKind::kAbsolute:
      // A bin away from 0 is symmetric around i Delta; the centred bin averages |z| over (-Delta/2, Delta/2).
      if (!continuous) return x;
      return i == 0 ? d / 4.0 : d * x;
    case CostKind::kExceedance:
      return continuous ? exceedance_fraction(i, cost.threshold / d)
                        : (discrete_exceeds(i, cost.threshold) ? 1.0 : 0.0);
  }
  return 0.0;
}

// sum_{i >= N} r^(i - N) A_i in closed form.
double tail_cost_series(const GeometricTailShape& shape, const CostSpecification& cost) {
  const int64_t n = shape.window;
  const double r = shape.ratio, q = 1.0 - r, d = shape.bin_width;
  const bool continuous = shape.domain == FamilyDomain::kContinuous;
  switch (cost.kind) {
    case CostKind::kSquare:
      return continuous ? d * d * (geometric_square_series(n, r) + 1.0 / (12.0 * q)) : geometric_square_series(n, r);
    case CostKind::kAbsolute:
      return continuous ? d * geometric_linear_series(n, r) : geometric_linear_series(n, r);
    case CostKind::kExceedance: {
      if (!continuous) {
        // The first integer K >= N with K > tau; bins N .. K-1 cost 0, every bin from K on costs 1.
        const double first = std::floor(cost.threshold + 1e-9) + 1.0;
        const double k = std::max(static_cast<double>(n), first);
        return std::pow(r, k - static_cast<double>(n)) / q;
      }
      // Bins lying wholly beyond tau (i - 1/2 >= t) count 1; at most one bin (the one holding tau) counts a
      // fraction.
      const double t = cost.threshold / d;
      const double first_whole = std::max(static_cast<double>(n), std::ceil(t + 0.5));
      double series = std::pow(r, first_whole - static_cast<double>(n)) / q;
      const double partial = first_whole - 1.0;
      if (partial >= static_cast<double>(n))
        series += std::pow(r, partial - static_cast<double>(n)) * std::clamp(partial + 0.5 - t, 0.0, 1.0);
      return series;
    }
  }
  return 0.0;
}

double weighted_mass(const std::vector<double>& coefficients, const std::vector<double>& log_window) {
  std::vector<double> terms(coefficients.size());
  for (size_t k = 0; k < terms.size(); ++k) terms[k] = coefficients[k] * std::exp(log_window[k]);
  return compensated_sum(terms);
}

}  // namespace

std::vector<double> cost_coefficients(const GeometricTailShape& shape, const CostSpecification& cost) {
  shape.validate();
  cost.validate();
  const int64_t n = shape.window;
  std::vector<double> c(static_cast<size_t>(n + 1));
  c[0] = bin_cost(shape, cost, 0);  // eq. 19: the centred bin appears once, every other bin twice (+-i)
  for (int64_t i = 1; i < n; ++i) c[static_cast<size_t>(i)] = 2.0 * bin_cost(shape, cost, i);
  c[static_cast<size_t>(n)] = 2.0 * tail_cost_series(shape, cost);
  return c;
}

std::vector<double> normalisation_coefficients(const GeometricTailShape& shape) {
  shape.validate();
  std::vector<double> c(static_cast<size_t>(shape.window + 1), 2.0);
  c[0] = 1.0;
  c.back() = 2.0 / (1.0 - shape.ratio);  // bins N, N+1, ... hold p_N (1 + r + r^2 + ...) per side
  return c;
}

namespace {

// log p_0 .. log p_N of Alg. 2 (lines 5-8) for the variance parameter C.
std::vector<double> binned_gaussian(const GeometricTailShape& shape, double variance_parameter) {
  const int64_t n = shape.window;
  const double scale = shape.bin_width / std::sqrt(variance_parameter);
  std::vector<double> log_p(static_cast<size_t>(n + 1));
  for (int64_t i = 0; i < n; ++i) {
    const double x = static_cast<double>(i);
    log_p[static_cast<size_t>(i)] = log_normal_interval((x - 0.5) * scale, (x + 0.5) * scale);
  }
  // p_N = (1 - r) Pr[Z > (N - 1/2) Delta]: the tail p_N / (1 - r) then holds exactly the Gaussian's mass
  // beyond the window, and the family is normalised.
  log_p.back() = std::log1p(-shape.ratio) + log_normal_cdf(-(static_cast<double>(n) - 0.5) * scale);
  return log_p;
}

}  // namespace

GaussianInitialisation gaussian_initialisation(const GeometricTailShape& shape, double sigma) {
  shape.validate();
  if (!(sigma > 0.0) || !std::isfinite(sigma)) throw InputError(fmt::format("sigma {} must be finite and > 0", sigma));
  const std::vector<double> square = cost_coefficients(shape, {CostKind::kSquare, 0.0});
  const double target = sigma * sigma;
  double lower = 0.0, upper = 2.0 * target;
  GaussianInitialisation best;
  double best_error = std::numeric_limits<double>::infinity();
  // Bisection (Alg. 2, lines 1-15): the family's variance grows with C. 200 halvings exhaust the double
  // precision of [0, 2 sigma^2]; the loop stops when the variance matches to 1e-12 relative or the bracket
  // cannot shrink further.
  for (int iteration = 0; iteration < 200; ++iteration) {
    const double middle = 0.5 * (lower + upper);
    if (!(middle > lower && middle < upper)) break;
    std::vector<double> log_p = binned_gaussian(shape, middle);
    const double variance = weighted_mass(square, log_p);
    const double error = std::abs(variance - target);
    if (error < best_error) {
      best_error = error;
      best = {std::move(log_p), middle, variance};
    }
    if (error <= 1e-12 * target) break;
    (variance < target ? lower : upper) = middle;
  }
  if (!(best_error <= 1e-12 * target))
    throw InputError(fmt::format(
        "sigma {}: the {} family with N = {}, r = {}, Delta = {} cannot reach variance {} (closest {}; the continuous "
        "family's variance is at least Delta^2 / 12)",
        sigma, to_string(shape.domain), shape.window, shape.ratio, shape.bin_width, target, best.variance));
  return best;
}

double family_log_probability(const GeometricTailShape& shape, const std::vector<double>& log_window, int64_t i) {
  const int64_t k = i < 0 ? -i : i;
  if (k <= shape.window) return log_window[static_cast<size_t>(k)];
  return log_window.back() + static_cast<double>(k - shape.window) * std::log(shape.ratio);
}

GeometricTailFamily::GeometricTailFamily(const GeometricTailShape& shape, const std::vector<double>& log_probabilities)
    : shape_(shape) {
  shape_.validate();
  if (static_cast<int64_t>(log_probabilities.size()) != shape_.window + 1)
    throw InputError(fmt::format("geometric-tail family: {} log probabilities given, the window needs N + 1 = {}",
                                 log_probabilities.size(), shape_.window + 1));
  for (size_t k = 0; k < log_probabilities.size(); ++k)
    if (!std::isfinite(log_probabilities[k]))
      throw InputError(
          fmt::format("geometric-tail family: log p_{} = {} is not finite (the family is strictly positive)", k,
                      log_probabilities[k]));
  theta_ = register_parameter("theta", torch::tensor(log_probabilities, torch::TensorOptions().dtype(torch::kDouble)));
}

std::shared_ptr<GeometricTailFamily> GeometricTailFamily::gaussian(const GeometricTailShape& shape, double sigma) {
  return std::make_shared<GeometricTailFamily>(shape, gaussian_initialisation(shape, sigma).log_probabilities);
}

std::vector<double> GeometricTailFamily::log_window() const {
  const torch::Tensor cpu = theta_.detach().to(torch::kCPU).contiguous();
  return std::vector<double>(cpu.data_ptr<double>(), cpu.data_ptr<double>() + cpu.numel());
}

double GeometricTailFamily::cost(const CostSpecification& cost) const {
  return weighted_mass(cost_coefficients(shape_, cost), log_window());
}

double GeometricTailFamily::normalisation() const {
  return weighted_mass(normalisation_coefficients(shape_), log_window());
}

NoiseTable GeometricTailFamily::table(TableProvenance provenance) const {
  const std::vector<double> log_p = log_window();
  const int64_t n = shape_.window;
  std::vector<double> p(static_cast<size_t>(2 * n + 1));
  for (int64_t i = -n; i <= n; ++i)
    p[static_cast<size_t>(i + n)] = std::exp(log_p[static_cast<size_t>(i < 0 ? -i : i)]);
  const Grid grid{-static_cast<double>(n) * shape_.bin_width, shape_.bin_width, 2 * n + 1};
  if (provenance.source.empty())
    provenance.source = fmt::format("geometric-tail family ({})", to_string(shape_.domain));
  provenance.parameters.emplace("window", static_cast<double>(n));
  provenance.parameters.emplace("tail_ratio", shape_.ratio);
  provenance.parameters.emplace("bin_width", shape_.bin_width);
  return NoiseTable(grid, std::move(p), SupportKind::kSymmetric, std::move(provenance), GeometricTails{shape_.ratio});
}

}  // namespace noiselearn
