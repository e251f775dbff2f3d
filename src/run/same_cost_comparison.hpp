#pragma once
// The references a geometric-tail family table is measured against (Gilani et al., Fig. 1): noises of the same cost
// and their certified epsilon at one delta. The Gaussian and the Laplace mechanisms (continuous, or their discrete
// versions on the integers), the family's own Gaussian start (Alg. 2), and the truncated Gaussian on the window.
// Costs are matched exactly where there is a closed form; the square cost only for the mechanisms.
#include <string>
#include <vector>

#include "accounting/accountant_options.hpp"
#include "core/dominating_pair.hpp"
#include "core/noise_table.hpp"
#include "models/geometric_tail_family.hpp"

namespace noiselearn {

// One row of comparison.csv.
struct SameCostRow {
  std::string noise;
  std::string parameter;
  double cost = 0.0;
  double epsilon_lower = 0.0, epsilon_upper = 0.0;
};

struct SameCostSettings {
  GeometricTailShape shape;
  CostSpecification cost;
  double budget = 0.0;  // the cost every reference is matched to
  PairSpecification pair;
  AccountantOptions accountant;
  int64_t compositions = 1;
  double delta = 1e-5;  // the epsilons are certified at this delta
};

// The family's Gaussian start first, then the mechanisms and the truncated Gaussian where the cost allows.
std::vector<SameCostRow> compare_same_cost(const SameCostSettings& settings, const NoiseTable& start_table,
                                           double start_cost);

}  // namespace noiselearn
