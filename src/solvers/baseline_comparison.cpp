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

void certify(BaselineMatch& match, const ComparisonSettings& settings) {
  const PairBounds bounds = account(make_pair_family(*match.table, settings.pair), settings.compositions, settings.accountant);
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
  const PairBounds bounds = account(make_pair_family(table, settings.pair), settings.compositions, settings.accountant);
  out.delta_upper = bounds.delta_upper(settings.epsilon);
  out.delta_lower = bounds.delta_lower(settings.epsilon);

  try {
    Calibration c = calibrate_to_utility("truncated-gaussian", grid, whole_grid(grid), settings.utility, out.utility);
    out.same_utility.found = true;
    out.same_utility.sigma = c.value;
    out.same_utility.table = std::move(c.table);
    certify(out.same_utility, settings);
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
    Calibration c = calibrate_to_delta("truncated-gaussian", grid, whole_grid(grid), target);
    out.same_delta.found = true;
    out.same_delta.sigma = c.value;
    out.same_delta.table = std::move(c.table);
    certify(out.same_delta, settings);
  } catch (const InputError& e) {
    out.same_delta.note = e.what();
  }
  return out;
}

}  // namespace noiselearn
