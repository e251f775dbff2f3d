#include "solvers/one_sided_composition.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "accounting/composition_theorems.hpp"
#include "accounting/hybrid_renyi.hpp"
#include "core/errors.hpp"
#include "core/one_sided_baselines.hpp"

namespace noiselearn {

DiscreteTblChoice least_second_moment_discrete_tbl(int64_t compositions, double delta, double epsilon,
                                                   OneSidedComposition accounting, const DiscreteTblGrid& grid) {
  if (compositions < 1) throw InputError(fmt::format("compositions {} must be at least 1", compositions));
  if (!(delta > 0.0 && delta < 1.0)) throw InputError(fmt::format("delta {} must lie in (0, 1)", delta));
  if (!(epsilon > 0.0) || !std::isfinite(epsilon)) throw InputError(fmt::format("epsilon {} must be positive", epsilon));
  if (grid.range_step < 1 || grid.max_range < grid.range_step || !(grid.sigma_step > 0.0) || !(grid.max_sigma >= grid.sigma_step))
    throw InputError("discrete TBL grid: steps must be positive and the maxima at least one step");
  const std::vector<double> alphas = grid.alphas.empty() ? paper_integer_alphas() : grid.alphas;
  DiscreteTblChoice best;
  best.second_moment = std::numeric_limits<double>::infinity();
  const int64_t sigma_count = static_cast<int64_t>(std::floor(grid.max_sigma / grid.sigma_step + 1e-9));
  for (int64_t k = 1; k <= sigma_count; ++k) {
    const double sigma = static_cast<double>(k) * grid.sigma_step;
    for (int64_t r = grid.range_step; r <= grid.max_range; r += grid.range_step) {
      const NoiseTable table = discrete_tbl_table(r, 0.5 * static_cast<double>(r), sigma);
      double second = 0.0;
      for (int64_t j = 0; j <= r; ++j) second += static_cast<double>(j) * static_cast<double>(j) * table.p(j);
      if (second >= best.second_moment) break;  // E[e^2] grows with R: nothing better for this sigma
      double achieved = std::numeric_limits<double>::infinity(), alpha = 0.0;
      if (accounting == OneSidedComposition::kAdvanced) {
        const double p0 = std::max(table.p(0), table.p(r));
        if (static_cast<double>(compositions) * p0 < delta) {
          try {
            achieved = advanced_composition_epsilon(1.0 / sigma, p0, compositions, delta);
          } catch (const InputError&) {
          }
        }
      } else {
        const HybridRenyiEpsilon e = hybrid_renyi_epsilon(table, 1, compositions, delta, alphas);
        achieved = e.epsilon;
        alpha = e.alpha;
      }
      if (achieved <= epsilon) {
        best = {true, r, sigma, second, achieved, alpha};
        break;  // the least feasible R for this sigma
      }
    }
  }
  if (!best.found) best.second_moment = 0.0;
  return best;
}

}  // namespace noiselearn
