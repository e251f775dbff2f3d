#include "run/same_cost_comparison.hpp"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "accounting/continuous_mechanisms.hpp"
#include "accounting/pair_accountant.hpp"
#include "accounting/refinement.hpp"
#include "core/baselines.hpp"
#include "core/utility.hpp"

namespace noiselearn {

namespace {

SameCostRow row_of(const std::string& noise, const std::string& parameter, double cost, const PairBounds& composed,
                   double delta) {
  PairBounds bounds = composed;
  bounds = refined_for_delta(std::move(bounds), delta);
  return SameCostRow{noise, parameter, cost, bounds.epsilon_lower(delta), bounds.epsilon_upper(delta)};
}

}  // namespace

std::vector<SameCostRow> compare_same_cost(const SameCostSettings& s, const NoiseTable& start_table,
                                           double start_cost) {
  const int64_t n = s.compositions;
  const double delta = s.delta, budget = s.budget, sensitivity = s.pair.sensitivity;
  std::vector<SameCostRow> rows;
  rows.push_back(row_of("family-gaussian-start", "Alg. 2", start_cost,
                        account(make_pair_family(start_table, s.pair), n, s.accountant, {{}, {delta}}), delta));
  if (s.cost.kind != CostKind::kSquare && s.cost.kind != CostKind::kAbsolute) return rows;
  const bool square = s.cost.kind == CostKind::kSquare;
  if (s.shape.domain == FamilyDomain::kContinuous) {
    // Variance sigma^2 = C, or E|x| = sigma sqrt(2/pi) = C; Laplace: 2 b^2 = C, or E|x| = b = C.
    const double sigma = square ? std::sqrt(budget) : budget * std::sqrt(M_PI / 2.0);
    const double scale = square ? std::sqrt(budget / 2.0) : budget;
    rows.push_back(row_of("gaussian", fmt::format("sigma {:.17g}", sigma), budget,
                          compose_bounds(gaussian_mechanism_bounds(sigma, sensitivity, s.accountant), n, s.accountant),
                          delta));
    rows.push_back(row_of("laplace", fmt::format("scale {:.17g}", scale), budget,
                          compose_bounds(laplace_mechanism_bounds(scale, sensitivity, s.accountant), n, s.accountant),
                          delta));
  } else if (square) {
    // Discrete Laplace P(i) ~ r^|i|: variance 2r/(1-r)^2 = C, r = 1 + 1/C - sqrt(1/C^2 + 2/C). A table with geometric
    // tails from its first point: exact.
    const double r = 1.0 + 1.0 / budget - std::sqrt(1.0 / (budget * budget) + 2.0 / budget);
    const std::vector<double> p{(1.0 - r) / (1.0 + r)};
    const NoiseTable discrete_laplace(Grid{0.0, 1.0, 1}, p, std::nullopt, {}, GeometricTails{r});
    rows.push_back(row_of("discrete-laplace", fmt::format("ratio {:.17g}", r), second_moment(discrete_laplace),
                          account(make_pair_family(discrete_laplace, s.pair), n, s.accountant, {{}, {delta}}), delta));
  }
  if (square) {
    // The truncated Gaussian on the window's bins, sigma bisected so that its cost (as a member of the family with
    // no tails: the bins' Delta^2 / 12 for the continuous domain) is the budget.
    const double range = static_cast<double>(s.shape.window) * s.shape.bin_width;
    const Grid grid = Grid::symmetric(range, s.shape.bin_width);
    const double within_bin =
        s.shape.domain == FamilyDomain::kContinuous ? s.shape.bin_width * s.shape.bin_width / 12.0 : 0.0;
    auto cost_at = [&](double sigma) {
      return second_moment(truncated_gaussian_table(grid, sigma, range)) + within_bin;
    };
    double low = 1e-3 * std::sqrt(budget), high = std::sqrt(budget);
    while (cost_at(high) < budget && high < 1e6 * range) high *= 2.0;
    if (cost_at(high) >= budget && cost_at(low) <= budget) {
      for (int i = 0; i < 200 && high - low > 1e-14 * high; ++i) {
        const double mid = 0.5 * (low + high);
        (cost_at(mid) < budget ? low : high) = mid;
      }
      const NoiseTable truncated = truncated_gaussian_table(grid, high, range);
      rows.push_back(row_of("truncated-gaussian", fmt::format("sigma {:.17g}, range {:g}", high, range), cost_at(high),
                            account(make_pair_family(truncated, s.pair), n, s.accountant, {{}, {delta}}), delta));
    }
  }
  return rows;
}

}  // namespace noiselearn
