#pragma once
// optimiser.kind = pgd (Gilani et al. Alg. 3, corrected): its options, the optimiser.* keys only the preconditioned
// gradient reads, and its registration. How it runs lives above (run/preconditioned_gradient_optimiser.cpp).
#include <cstdint>
#include <string>
#include <vector>

#include "io/config_schema.hpp"
#include "io/training_kinds.hpp"

namespace noiselearn {

struct PreconditionedGradientConfig {
  int64_t iterations = 2000;
  std::string direction = "steepest";  // steepest, lbfgs, newton
  int64_t line_search_halvings = 50;
  int64_t alpha_update_every = 10;      // iterations; 0: alpha fixed
  std::string alpha_update = "newton";  // newton, minimise
  double relative_tolerance = 1e-10;
  double max_seconds = 0.0;           // 0: no limit
  std::string warm_start = "none";    // none, renyi
  int64_t warm_start_iterations = 0;  // 0: iterations

  static const std::vector<ConfigKey<PreconditionedGradientConfig>>& keys();
  void validate() const;  // ranges and enumerations; an InputError naming the key
};

OptimiserKind preconditioned_gradient_optimiser_kind();

}  // namespace noiselearn
