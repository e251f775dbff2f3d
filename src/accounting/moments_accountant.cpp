#include "accounting/moments_accountant.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "accounting/grid_minimisation.hpp"
#include "core/errors.hpp"
#include "core/log_math.hpp"
#include "core/noise_table.hpp"

namespace noiselearn {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// One direction with its precomputed logs: the moment function and the composed distinguishing-event mass.
struct Direction {
  std::vector<double> log_first, log_second;  // on the common support
  double composed_infinity_mass = 0.0;        // 1 - (1 - omega)^n

  double log_gamma(double lambda) const {
    std::vector<double> terms(log_first.size());
    for (size_t i = 0; i < terms.size(); ++i) terms[i] = (1.0 + lambda) * log_first[i] - lambda * log_second[i];
    return log_sum_exp(terms);
  }
};

Direction make_direction(const std::vector<double>& first, const std::vector<double>& second, int64_t n) {
  Direction d;
  std::vector<double> distinguishing;
  for (size_t i = 0; i < first.size(); ++i) {
    if (!(first[i] > 0.0)) continue;
    if (!(second[i] > 0.0)) {
      distinguishing.push_back(first[i]);
      continue;
    }
    d.log_first.push_back(std::log(first[i]));
    d.log_second.push_back(std::log(second[i]));
  }
  const double omega = compensated_sum(distinguishing);
  d.composed_infinity_mass = -std::expm1(static_cast<double>(n) * std::log1p(-omega));
  return d;
}

std::vector<Direction> directions(const std::vector<DominatingPair>& pairs, int64_t n) {
  if (n < 1) throw InputError(fmt::format("number of compositions {} must be at least 1", n));
  if (pairs.empty()) throw InputError("no dominating pair");
  std::vector<Direction> out;
  for (const auto& pair : pairs) {
    const std::vector<double> a = pair.all_a(), b = pair.all_b();
    out.push_back(make_direction(a, b, n));
    out.push_back(make_direction(b, a, n));
  }
  return out;
}

std::vector<double> lambda_grid() {
  std::vector<double> grid;
  for (int i = 0; i <= 140; ++i) grid.push_back(1e-3 * std::pow(10.0, i / 20.0));
  return grid;
}

}  // namespace

double moments_log_gamma(const std::vector<double>& first, const std::vector<double>& second, double lambda) {
  return make_direction(first, second, 1).log_gamma(lambda);
}

MomentsBound moments_accountant_delta(const std::vector<DominatingPair>& pairs, int64_t n, double epsilon) {
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon))
    throw InputError(fmt::format("epsilon {} must be finite and >= 0", epsilon));
  MomentsBound worst{0.0, std::nan("")};
  for (const Direction& d : directions(pairs, n)) {
    // log of the moment term; the direction's delta is omega_n + exp(min).
    auto log_term = [&](double lambda) { return static_cast<double>(n) * d.log_gamma(lambda) - lambda * epsilon; };
    const GridMinimum best = minimise_on_grid(log_term, lambda_grid(), 60);
    const double delta = std::min(1.0, d.composed_infinity_mass + std::exp(best.value));
    if (delta > worst.value) worst = {delta, best.argument};
  }
  return worst;
}

MomentsBound moments_accountant_epsilon(const std::vector<DominatingPair>& pairs, int64_t n, double delta) {
  if (!(delta > 0.0 && delta < 1.0)) throw InputError(fmt::format("delta {} must be in (0, 1)", delta));
  MomentsBound worst{0.0, std::nan("")};
  for (const Direction& d : directions(pairs, n)) {
    const double budget = delta - d.composed_infinity_mass;  // left for the moment term
    if (budget <= 0.0) return {kInfinity, std::nan("")};
    // exp(n Gamma - lambda eps) = budget  =>  eps = (n Gamma - log budget) / lambda.
    auto epsilon_at = [&](double lambda) {
      return (static_cast<double>(n) * d.log_gamma(lambda) - std::log(budget)) / lambda;
    };
    const GridMinimum best = minimise_on_grid(epsilon_at, lambda_grid(), 60);
    const double eps = std::max(0.0, best.value);
    if (eps > worst.value) worst = {eps, best.argument};
  }
  return worst;
}

}  // namespace noiselearn
