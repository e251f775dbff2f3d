#pragma once
// Target mode (beyond the paper): the user states a target and the trainer searches the utility weight w for
// the best table that meets it, judged by the CERTIFIED accountant (never by the training surrogate):
//   - delta target: the least utility loss whose certified delta at (eps, n) is <= target. The certified delta
//     grows with w (more weight on utility, less on privacy), so the feasible weights are w <= w*; the search
//     looks for the largest feasible w.
//   - utility target: the least certified delta whose utility is <= target. Utility falls with w, so the feasible
//     weights are w >= w*; the search looks for the smallest feasible w.
// The search steps w by factors of 10 until the target is bracketed, then bisects log w.
//
// The search never ends worse than the best certified table it has seen, the starting table included: every
// table is a candidate (trials[0] is the starting table, evaluated before any training), the answer is the
// best candidate that meets the target (or, if none does, the one closest to it), and every trial is trained
// from the parameters of the best candidate so far (warm start from the incumbent, not from whatever the
// previous trial ended with, which may have moved far from the target). When the target is missed, the
// message says what the trials showed, not a guess about the grid.
#include <cstdint>
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
  int64_t trials = 8;  // training runs (the starting table is evaluated in addition)
  double initial_weight = 0.5;
  int64_t epochs_per_trial = 0;  // for the message only
};

struct TargetTrial {
  bool trained = true;      // false: the starting table
  double weight = 0.0;      // utility weight of a trained trial
  size_t started_from = 0;  // the candidate whose parameters it was trained from
  double certified_delta = 0.0;
  double utility = 0.0;
  bool feasible = false;
  std::optional<NoiseTable> table;
};

struct TargetSearchResult {
  std::vector<TargetTrial> trials;  // trials[0]: the starting table; then the trained trials in order
  std::optional<size_t> best;       // the best candidate that meets the target
  size_t kept = 0;                  // the candidate the search ends with: *best, else the closest to the target
  std::string message;              // one sentence for the summary
};

// train(weight, start) trains at a fixed utility weight, starting from the parameters that produced
// trials[start] (the caller keeps them), and returns the table; evaluate(table) returns
// {certified delta, utility}.
TargetSearchResult search_utility_weight(const std::function<NoiseTable(double weight, size_t start)>& train,
                                         const std::function<std::pair<double, double>(const NoiseTable&)>& evaluate,
                                         const NoiseTable& starting_table, const TargetSearchOptions& options);

}  // namespace noiselearn
