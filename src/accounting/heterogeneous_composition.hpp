#pragma once
// Heterogeneous compositions: parts of n_i releases of different mechanisms, the directions composed consistently,
// the distinguishing events of every part, the adaptive programme per part for the upper bound.
#include <cstdint>
#include <utility>
#include <vector>

#include "accounting/accountant_options.hpp"
#include "accounting/pair_bounds.hpp"
#include "core/dominating_pair.hpp"

namespace noiselearn {

// Heterogeneous composition of several mechanisms, each with its pair family and its count. The directions
// are composed consistently (A||B of every part together); the lower bound uses each part's first scenario.
PairBounds account_heterogeneous(const std::vector<std::pair<PairFamily, int64_t>>& parts,
                                 const AccountantOptions& options);
// The same from single-release bounds of any origin (families, mechanisms without a grid: sampled_release.hpp), each
// with its count.
PairBounds compose_heterogeneous_bounds(const std::vector<std::pair<PairBounds, int64_t>>& parts,
                                        const AccountantOptions& options);

}  // namespace noiselearn
