#include "train/target_search.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cmath>

namespace noiselearn {

TargetSearchResult search_utility_weight(const std::function<NoiseTable(double)>& train,
                                         const std::function<std::pair<double, double>(const NoiseTable&)>& evaluate,
                                         const TargetSearchOptions& options) {
  TargetSearchResult result;
  const bool delta_target = options.kind == TargetKind::kDelta;
  auto run_trial = [&](double weight) -> bool {
    TargetTrial trial;
    trial.weight = weight;
    trial.table = train(weight);
    std::tie(trial.certified_delta, trial.utility) = evaluate(*trial.table);
    trial.feasible = delta_target ? trial.certified_delta <= options.target : trial.utility <= options.target;
    spdlog::info("target search: trial {} with utility weight {:.4g}: certified delta {:.6g}, utility {:.6g} ({})",
                 result.trials.size() + 1, weight, trial.certified_delta, trial.utility, trial.feasible ? "meets the target" : "misses it");
    result.trials.push_back(std::move(trial));
    return result.trials.back().feasible;
  };
  // Feasible weights: w <= w* for a delta target, w >= w* for a utility target. `toward_feasible` is the
  // direction (factor) that makes a trial more likely to meet the target.
  const double toward_feasible = delta_target ? 0.1 : 10.0;
  std::optional<double> feasible, infeasible;
  double weight = options.initial_weight;
  for (int64_t t = 0; t < options.trials; ++t) {
    const bool ok = run_trial(weight);
    (ok ? feasible : infeasible) = weight;
    if (feasible && infeasible) {
      weight = std::sqrt(*feasible * *infeasible);  // bisect log w
    } else {
      weight = ok ? weight / toward_feasible : weight * toward_feasible;
    }
  }
  // Best feasible trial: least utility (delta target) or least certified delta (utility target).
  for (size_t i = 0; i < result.trials.size(); ++i) {
    const auto& trial = result.trials[i];
    if (!trial.feasible) continue;
    if (!result.best) {
      result.best = i;
      continue;
    }
    const auto& best = result.trials[*result.best];
    if (delta_target ? trial.utility < best.utility : trial.certified_delta < best.certified_delta) result.best = i;
  }
  if (result.best) {
    const auto& best = result.trials[*result.best];
    result.message = fmt::format("target {} <= {:g} met at utility weight {:.4g} (certified delta {:.6g}, utility {:.6g}) after {} trials",
                                 delta_target ? "certified delta" : "utility", options.target, best.weight,
                                 best.certified_delta, best.utility, result.trials.size());
  } else {
    double closest = INFINITY;
    for (const auto& trial : result.trials) closest = std::min(closest, delta_target ? trial.certified_delta : trial.utility);
    result.message = fmt::format("target {} <= {:g} cannot be met within this grid's range after {} trials: the best "
                                 "reached is {:.6g} (widen grid.range, lower loss.compositions, or relax the target)",
                                 delta_target ? "certified delta" : "utility", options.target, result.trials.size(), closest);
  }
  return result;
}

}  // namespace noiselearn
