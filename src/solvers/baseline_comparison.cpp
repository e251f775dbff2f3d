#include "solvers/baseline_comparison.hpp"

#include <fmt/format.h>

#include <cmath>

#include "accounting/pair_accountant.hpp"
#include "core/errors.hpp"
#include "solvers/calibration.hpp"

namespace noiselearn {

namespace {

BaselineParameters whole_grid(const Grid& grid) {
  BaselineParameters parameters;
  parameters.range = std::max(std::abs(grid.origin), std::abs(grid.last()));
  return parameters;
}

// A calibrated truncated Gaussian becomes the match: its scale, table, certified delta and utility.
void adopt(BaselineMatch& match, Calibration calibration, const ComparisonSettings& settings) {
  match.found = true;
  match.sigma = calibration.value;
  match.table = std::move(calibration.table);
  const PairBounds bounds = account(make_pair_family(*match.table, settings.pair), settings.compositions,
                                    settings.accountant, {{settings.epsilon}, {}});
  match.delta_upper = bounds.delta_upper(settings.epsilon);
  match.delta_lower = bounds.delta_lower(settings.epsilon);
  match.utility = utility(*match.table, settings.utility);
}

}  // namespace

BaselineComparison compare_with_truncated_gaussian(const NoiseTable& table, const ComparisonSettings& settings) {
  BaselineComparison out;
  const Grid& grid = table.grid();
  if (!grid.is_symmetric()) throw InputError("the truncated-Gaussian comparison needs a symmetric grid");
  out.utility = utility(table, settings.utility);
  const PairBounds bounds = account(make_pair_family(table, settings.pair), settings.compositions, settings.accountant,
                                    {{settings.epsilon}, {}});
  out.delta_upper = bounds.delta_upper(settings.epsilon);
  out.delta_lower = bounds.delta_lower(settings.epsilon);

  try {
    adopt(out.same_utility,
          calibrate_to_utility("truncated-gaussian", grid, whole_grid(grid), settings.utility, out.utility), settings);
  } catch (const InputError& e) {
    out.same_utility.note = e.what();
  }
  try {
    DeltaTarget target;
    target.epsilon = settings.epsilon;
    target.delta = std::min(std::max(out.delta_upper, 1e-300), 1.0 - 1e-12);
    target.compositions = settings.compositions;
    target.pair = settings.pair;
    target.accountant = settings.accountant;
    adopt(out.same_delta, calibrate_to_delta("truncated-gaussian", grid, whole_grid(grid), target), settings);
  } catch (const InputError& e) {
    out.same_delta.note = e.what();
  }
  return out;
}

}  // namespace noiselearn
