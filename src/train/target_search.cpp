#include "train/target_search.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "core/counted_noun.hpp"
#include "core/directed_format.hpp"

namespace noiselearn {

namespace {

// The order of candidates: one that meets the target beats one that does not; among those that meet it, the
// objective decides (least utility loss for a delta target, least certified delta for a utility target);
// among those that miss it, the distance to the target (the constrained quantity itself).
bool better(const TargetTrial& a, const TargetTrial& b, TargetKind kind) {
  if (a.feasible != b.feasible) return a.feasible;
  const bool delta_target = kind == TargetKind::kDelta;
  const double objective_a = delta_target ? a.utility : a.certified_delta;
  const double objective_b = delta_target ? b.utility : b.certified_delta;
  const double constraint_a = delta_target ? a.certified_delta : a.utility;
  const double constraint_b = delta_target ? b.certified_delta : b.utility;
  if (a.feasible) return objective_a < objective_b || (objective_a == objective_b && constraint_a < constraint_b);
  return constraint_a < constraint_b || (constraint_a == constraint_b && objective_a < objective_b);
}

// A certified delta is an upper bound: printed rounded up, so that the printed number is one too.
std::string upper(double certified_delta) { return format_general(certified_delta, 6, Rounding::kUp); }

std::string describe_candidate(const TargetTrial& trial, size_t index) {
  return trial.trained ? fmt::format("trial {}, utility weight {:.4g}", index, trial.weight) : "the starting table";
}

}  // namespace

TargetSearchResult search_utility_weight(const std::function<NoiseTable(double, size_t)>& train,
                                         const std::function<std::pair<double, double>(const NoiseTable&)>& evaluate,
                                         const NoiseTable& starting_table, const TargetSearchOptions& options) {
  TargetSearchResult result;
  const bool delta_target = options.kind == TargetKind::kDelta;
  auto judge = [&](TargetTrial trial) {
    std::tie(trial.certified_delta, trial.utility) = evaluate(*trial.table);
    trial.feasible = delta_target ? trial.certified_delta <= options.target : trial.utility <= options.target;
    const std::string name =
        trial.trained ? fmt::format("trial {} with utility weight {:.4g}", result.trials.size(), trial.weight)
                      : "the starting table";
    spdlog::info("target search: {}: certified delta {}, utility {:.6g} ({})", name, upper(trial.certified_delta),
                 trial.utility, trial.feasible ? "meets the target" : "misses it");
    result.trials.push_back(std::move(trial));
    const size_t index = result.trials.size() - 1;
    if (index == 0 || better(result.trials[index], result.trials[result.kept], options.kind)) result.kept = index;
    return result.trials[index].feasible;
  };
  TargetTrial start;
  start.trained = false;
  start.table = starting_table;
  judge(std::move(start));

  // Feasible weights: w <= w* for a delta target, w >= w* for a utility target. `toward_feasible` is the
  // factor that makes a trial more likely to meet the target.
  const double toward_feasible = delta_target ? 0.1 : 10.0;
  std::optional<double> feasible, infeasible;
  double weight = options.initial_weight;
  for (int64_t t = 0; t < options.trials; ++t) {
    TargetTrial trial;
    trial.weight = weight;
    trial.started_from = result.kept;
    trial.table = train(weight, result.kept);
    const bool ok = judge(std::move(trial));
    (ok ? feasible : infeasible) = weight;
    if (feasible && infeasible) {
      weight = std::sqrt(*feasible * *infeasible);  // bisect log w
    } else {
      weight = ok ? weight / toward_feasible : weight * toward_feasible;
    }
  }
  if (result.trials[result.kept].feasible) result.best = result.kept;

  const std::string quantity = delta_target ? "certified delta" : "utility";
  const std::string trials_text = counted_noun(options.trials, "trial");
  const TargetTrial& kept = result.trials[result.kept];
  if (result.best) {
    result.message = kept.trained
                         ? fmt::format(
                               "target {} <= {} met at utility weight {:.4g} (certified delta {}, utility {:.6g}) "
                               "after {}",
                               quantity, format_exact(options.target), kept.weight, upper(kept.certified_delta),
                               kept.utility, trials_text)
                         : fmt::format(
                               "target {} <= {} met by the starting table (certified delta {}, utility {:.6g}), "
                               "which is kept: none of {} met it with a lower {}",
                               quantity, format_exact(options.target), upper(kept.certified_delta), kept.utility,
                               trials_text, delta_target ? "utility loss" : "certified delta");
    return result;
  }
  // Missed: say what the trials showed. The trained weights run toward_feasible-ward from initial_weight; the
  // most extreme weight tried is the one most likely to meet the target.
  std::optional<size_t> extreme;
  double lowest = INFINITY, highest = 0.0;
  for (size_t i = 1; i < result.trials.size(); ++i) {
    const double w = result.trials[i].weight;
    lowest = std::min(lowest, w);
    highest = std::max(highest, w);
    if (!extreme || (delta_target ? w < result.trials[*extreme].weight : w > result.trials[*extreme].weight))
      extreme = i;
  }
  std::string what = fmt::format(
      "target {} <= {} not met: the closest of the starting table and {}{} is {} ({}), which is kept", quantity,
      format_exact(options.target), trials_text,
      extreme
          ? fmt::format(
                " (utility weights {:.4g} to {:.4g}{})", lowest, highest,
                options.epochs_per_trial > 0 ? ", " + counted_noun(options.epochs_per_trial, "epoch") + " each" : "")
          : "",
      describe_candidate(kept, result.kept),
      delta_target ? "certified delta " + upper(kept.certified_delta) : fmt::format("utility {:.6g}", kept.utility));
  std::string why;
  const std::string direction = delta_target ? "smaller" : "larger";
  if (!extreme) {
    why = "no trial was trained (target.trials)";
  } else if (result.kept == *extreme && result.trials.size() > 2) {
    why =
        fmt::format("the {} was still falling at the {} weight tried, so more trials (target.trials) would go further",
                    quantity, delta_target ? "smallest" : "largest");
  } else if (result.kept == *extreme) {
    why = fmt::format("one trial shows no trend: more trials (target.trials) try {} weights", direction);
  } else if (result.kept == 0) {
    why = "no trial got closer than the starting table (longer trials, target.trial_epochs, may)";
  } else {
    why = fmt::format(
        "trials at {} weights got no closer, so within these epochs per trial the learner finds no table nearer "
        "the target from here (longer trials, target.trial_epochs, or easier settings may)",
        direction);
  }
  result.message = what + "; " + why;
  return result;
}

}  // namespace noiselearn
