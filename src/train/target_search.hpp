#pragma once
// Target mode (beyond the paper): the user states a target and the trainer searches the utility weight w for
// the best table that meets it, judged by the CERTIFIED accountant (never by the training surrogate):
//   - delta target: the least utility loss whose certified delta at (eps, n) is <= target. The certified delta
//     grows with w (more weight on utility, less on privacy), so the feasible weights are w <= w*; the search
//     looks for the largest feasible w.
//   - utility target: the least certified delta whose utility is <= target. Utility falls with w, so the feasible
//     weights are w >= w*; the search looks for the smallest feasible w.
// The search steps w by factors of 10 until the target is bracketed, then bisects log w. Every trial is kept;
// the answer is the best feasible trial. If none is feasible, the result says the target cannot be met within
// the grid's range, with the best value reached.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/noise_table.hpp"

namespace noiselearn {

enum class TargetKind { kDelta, kUtility };

struct TargetSearchOptions {
  TargetKind kind = TargetKind::kDelta;
  double target = 1e-6;
  int64_t trials = 8;
  double initial_weight = 0.5;
};

struct TargetTrial {
  double weight = 0.0;
  double certified_delta = 0.0;
  double utility = 0.0;
  bool feasible = false;
  std::optional<NoiseTable> table;
};

struct TargetSearchResult {
  std::vector<TargetTrial> trials;
  std::optional<size_t> best;  // index into trials
  std::string message;         // one sentence for the summary
};

// train(weight) trains at a fixed utility weight and returns the table; evaluate(table) returns
// {certified delta, utility}.
TargetSearchResult search_utility_weight(const std::function<NoiseTable(double)>& train,
                                         const std::function<std::pair<double, double>(const NoiseTable&)>& evaluate,
                                         const TargetSearchOptions& options);

}  // namespace noiselearn
