#pragma once
// When the exact adaptive programme runs (several_pairs auto, pair_accountant.hpp): the brackets it could narrow, its
// run on a composition's candidates (whole, or in blocks: adaptive_blocks.hpp), and its dominating pairs in a
// heterogeneous composition.
#include <cstdint>
#include <utility>
#include <vector>

#include "accounting/accountant_options.hpp"
#include "accounting/pair_accountant.hpp"

namespace noiselearn {

// The widest relative epsilon bracket at delta = omega + 1e-3, 1e-6 and 1e-10.
double widest_epsilon_bracket(const PairBounds& bounds);
// Runs the exact adaptive programme on `candidates` (per direction) for n releases, or says why not.
void run_adaptive_programme(PairBounds& bounds, const std::vector<AdaptiveReleases>& candidates, int64_t n,
                            const AccountantOptions& options, const AccountingQueries& queries);
// A heterogeneous composition's upper bound through each part's adaptive programme (an upper bound only).
void heterogeneous_adaptive_upper(PairBounds& result, const std::vector<std::pair<PairBounds, int64_t>>& parts,
                                  const AccountantOptions& options);

}  // namespace noiselearn
