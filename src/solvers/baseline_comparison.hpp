#pragma once
// A table against the truncated Gaussian on the same grid (Sommer et al., section 4.3): the Gaussian with
// (i) the same utility -> its certified delta, and (ii) the same certified delta -> its utility. Every delta
// here is the certified accountant's upper bound at (epsilon, n).
#include <optional>
#include <string>

#include "accounting/accountant_options.hpp"
#include "core/dominating_pair.hpp"
#include "core/noise_table.hpp"
#include "core/utility.hpp"

namespace noiselearn {

struct BaselineMatch {
  bool found = false;
  std::string note;  // why not found (e.g. "no sigma reaches the target delta")
  double sigma = 0.0;
  std::optional<NoiseTable> table;
  double utility = 0.0;
  double delta_upper = 0.0, delta_lower = 0.0;
};

struct BaselineComparison {
  double utility = 0.0;  // of the table, in `kind`
  double delta_upper = 0.0, delta_lower = 0.0;
  BaselineMatch same_utility;  // truncated Gaussian with the table's utility
  BaselineMatch same_delta;    // truncated Gaussian with the table's certified delta
};

struct ComparisonSettings {
  PairSpecification pair;
  int64_t compositions = 1;
  double epsilon = 0.3;
  UtilitySpecification utility;
  AccountantOptions accountant;
};

// The truncated Gaussian is truncated to the table's grid (its support is the whole grid).
BaselineComparison compare_with_truncated_gaussian(const NoiseTable& table, const ComparisonSettings& settings);

}  // namespace noiselearn
