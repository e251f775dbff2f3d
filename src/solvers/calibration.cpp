#include "solvers/calibration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <optional>
#include <vector>

#include "accounting/grid_minimisation.hpp"
#include "accounting/pair_accountant.hpp"
#include "core/directed_format.hpp"
#include "core/errors.hpp"
#include "core/monotone_search.hpp"

namespace noiselearn {

namespace {

// The largest loss grid of the coarse composition that rules out scales far from the target (calibrate_to_delta):
// the loss step is the accountant's, coarsened by 2 as the composition outgrows it.
constexpr int64_t kCoarsePoints = int64_t{1} << 14;

BaselineParameters with_value(BaselineParameters parameters, const std::string& name, double value) {
  if (name == "sigma") parameters.sigma = value;
  if (name == "scale") parameters.scale = value;
  if (name == "range") parameters.range = value;
  return parameters;
}

// Scales worth trying on a grid: from one step (noise the grid can barely resolve) to `widths` times the
// grid's half-width (a truncated family approaches the uniform table as its scale grows).
std::pair<double, double> scale_bracket(const Grid& grid, double widths) {
  return {grid.step, widths * std::max(std::abs(grid.origin), std::abs(grid.last()))};
}

// For "range" (uniform) only whole numbers of steps are valid: snap.
double admissible(const std::string& name, const Grid& grid, double value) {
  if (name != "range") return value;
  return std::max(1.0, std::round(value / grid.step)) * grid.step;
}

}  // namespace

std::string calibrated_parameter(const std::string& family) {
  if (family == "gaussian" || family == "truncated-gaussian" || family == "discrete-gaussian" || family == "tbg")
    return "sigma";
  if (family == "laplace" || family == "truncated-laplace" || family == "discrete-laplace" || family == "tbl" ||
      family == "discrete-tbl")
    return "scale";
  if (family == "uniform") return "range";
  baseline_description(family);  // throws for unknown names
  throw InputError(fmt::format("baseline {} has no scale to calibrate", family));
}

Calibration calibrate_to_utility(const std::string& family, const Grid& grid, BaselineParameters parameters,
                                 const UtilitySpecification& kind, double target) {
  if (!(target > 0.0) || !std::isfinite(target))
    throw InputError(fmt::format("target {} utility {} must be positive and finite", to_string(kind.kind), target));
  const std::string name = calibrated_parameter(family);
  auto [low, high] = scale_bracket(grid, name == "range" ? 1.0 : 1000.0);
  int evaluations = 0;
  auto evaluate = [&](double value) {
    ++evaluations;
    NoiseTable table = make_baseline(family, grid, with_value(parameters, name, admissible(name, grid, value)));
    const double u = utility(table, kind);
    return std::pair{u, std::move(table)};
  };
  const double u_low = evaluate(low).first, u_high = evaluate(high).first;
  if (target < u_low || target > u_high)
    throw InputError(
        fmt::format("target {} utility {:g} is out of reach for {} on this grid: {} from {:g} to {:g} "
                    "gives utilities {:.6g} to {:.6g}",
                    to_string(kind.kind), target, family, name, low, high, u_low, u_high));
  // Bisection in log scale: utility is non-decreasing in the scale.
  high = bisect(
             {low, high}, [&](double middle) { return evaluate(middle).first < target; },
             [](double lo, double hi) { return hi / lo - 1.0 > 1e-12; }, 200, Midpoint::kGeometric)
             .high;
  auto [achieved, table] = evaluate(high);
  return Calibration{admissible(name, grid, high), std::move(table), achieved, evaluations};
}

Calibration calibrate_to_delta(const std::string& family, const Grid& grid, BaselineParameters parameters,
                               const DeltaTarget& target) {
  if (!(target.delta > 0.0 && target.delta < 1.0))
    throw InputError(fmt::format("target delta {} must be in (0, 1)", target.delta));
  if (!(target.epsilon >= 0.0) || !std::isfinite(target.epsilon))
    throw InputError(fmt::format("target epsilon {} must be finite and >= 0", target.epsilon));
  const std::string name = calibrated_parameter(family);
  // Plain variables, not a structured binding: a lambda may capture a binding only from C++20 on (clang refuses).
  const std::pair<double, double> bracket = scale_bracket(grid, name == "range" ? 1.0 : 4.0);
  const double low = bracket.first, high = bracket.second;
  int evaluations = 0;
  auto table_at = [&](double value) {
    return make_baseline(family, grid, with_value(parameters, name, admissible(name, grid, value)));
  };
  auto certified_delta_of = [&](NoiseTable table) {
    ++evaluations;
    const PairBounds bounds =
        account(make_pair_family(table, target.pair), target.compositions, target.accountant, {{target.epsilon}, {}});
    return std::pair{bounds.delta_upper(target.epsilon), std::move(table)};
  };
  auto certified_delta = [&](double value) { return certified_delta_of(table_at(value)); };
  // Whether the scale's certified delta meets the target, decided first by a coarse composition where it can be: a
  // rigorous lower bound above the target means the certified upper bound is above it too, so the decision (and the
  // search's path, and its result) is the one the full composition gives. Most scales of the scan leak far more than
  // the target (delta = 1 to six digits at a tenth of the right scale), and their full composition at the queries'
  // loss step would be most of the search's time (tests/benchmarks/README.md: `compare` of a DP-SGD table).
  AccountantOptions coarse = target.accountant;
  coarse.max_points = kCoarsePoints;
  coarse.several_pairs = SeveralPairsMethod::kEnvelope;  // no per-query route, no adaptive programme: cheap
  coarse.tilted_refinement = false;
  auto meets_target = [&](double value) {
    NoiseTable table = table_at(value);
    if (target.coarse_first) {
      try {
        const PairBounds rough =
            account(make_pair_family(table, target.pair), target.compositions, coarse, {{target.epsilon}, {}});
        if (rough.delta_lower(target.epsilon) > target.delta) {
          ++evaluations;
          return false;
        }
      } catch (const std::exception&) {
        // Undecided by the coarse composition: the full one decides (and reports what is wrong, if anything is).
      }
    }
    return certified_delta_of(std::move(table)).first <= target.delta;
  };
  // Log-spaced scan for the first scale meeting the target.
  constexpr int kScan = 24;
  auto scan_point = [&](int i) { return low * std::pow(high / low, static_cast<double>(i) / kScan); };
  double previous = low;
  std::optional<double> first_feasible;
  int scanned_points = 0;
  for (int i = 0; i <= kScan; ++i) {
    const double value = scan_point(i);
    ++scanned_points;
    if (meets_target(value)) {
      first_feasible = value;
      break;
    }
    previous = value;
  }
  // The certified deltas of the scan (needed only when no scale met the target: where is the least?).
  std::vector<double> scanned;
  if (!first_feasible)
    for (int i = 0; i < scanned_points; ++i) scanned.push_back(certified_delta(scan_point(i)).first);
  // A truncated family's delta(scale) is U-shaped: too little noise leaks through the privacy loss, too much
  // piles mass at the truncation edge, which the shifted table cannot cover. Its dip can fall between two scan
  // points, so before declaring the target out of reach, refine around the scan's least delta (golden section
  // in log scale; unimodality is what makes it find the dip).
  GridMinimum dip{std::log(low), scanned.empty() ? 0.0 : scanned.front()};
  if (!first_feasible) {
    std::vector<double> log_scales;
    for (int i = 0; i <= kScan; ++i) log_scales.push_back(std::log(scan_point(i)));
    dip = minimise_on_grid([&](double log_scale) { return certified_delta(std::exp(log_scale)).first; }, log_scales,
                           scanned, /*refinement_iterations=*/40);
    if (dip.value <= target.delta) {
      first_feasible = std::exp(dip.argument);
      // Infeasible and left of the dip: the scan point before the least one (the least scale if none).
      const auto least = std::min_element(scanned.begin(), scanned.end()) - scanned.begin();
      previous = scan_point(static_cast<int>(std::max<std::ptrdiff_t>(least - 1, 0)));
    }
  }
  if (!first_feasible)
    throw InputError(
        fmt::format("no {} of {} on this grid reaches certified delta {} at epsilon {} after {} "
                    "compositions; the smallest delta found is {} at {} = {:.6g}",
                    name, family, format_exact(target.delta), format_exact(target.epsilon), target.compositions,
                    format_general(dip.value, 6, Rounding::kUp), name, std::exp(dip.argument)));
  double infeasible = previous, feasible = *first_feasible;
  if (feasible == low) infeasible = low;  // already the least noise the grid resolves
  while (feasible / infeasible - 1.0 > 1e-6) {
    const double middle = std::sqrt(infeasible * feasible);
    (meets_target(middle) ? feasible : infeasible) = middle;
  }
  auto [achieved, table] = certified_delta(feasible);
  return Calibration{admissible(name, grid, feasible), std::move(table), achieved, evaluations};
}

}  // namespace noiselearn
