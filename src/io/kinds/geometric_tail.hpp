#pragma once
// model.kind = geometric-tail (Gilani et al. Defs 3.3-3.4): its options, the family's model.* keys, and its
// registration. The family lives in models/geometric_tail_family; it is built by its optimiser, the preconditioned
// gradient (run/preconditioned_gradient_optimiser.cpp).
#include <cstdint>
#include <string>
#include <vector>

#include "io/config_schema.hpp"
#include "io/training_kinds.hpp"

namespace noiselearn {

struct GeometricTailConfig {
  std::string domain = "continuous";  // continuous or discrete
  int64_t window = 2000;              // N, bins
  double tail_ratio = 0.9999;         // r, per bin
  double bin_width = 0.05;            // Delta, x units
  std::string cost = "square";        // square, absolute, exceedance
  double cost_budget = 25.0;          // C, cost units
  double cost_threshold = 0.0;        // tau of the exceedance cost, x units

  static const std::vector<ConfigKey<GeometricTailConfig>>& keys();
  void validate() const;
};

ModelKind geometric_tail_model_kind();

}  // namespace noiselearn
