// The registry of optimiser kinds (optimiser.kind): one line per kind. A kind is its own file in io/kinds/ (its typed
// options with their keys, defaults, units and validate(), its rules on the other keys and its registration), its
// implementation of RunOptimiser in src/run (with one line registering its factory: run/optimiser_factories.cpp, or
// link_learners.cpp for one that learns with LibTorch) and one line here; a kind with options is also one member of
// TrainingConfig and one part_keys line of its schema.
#include "io/kinds/adam.hpp"
#include "io/kinds/hybrid_renyi_program.hpp"
#include "io/kinds/preconditioned_gradient.hpp"
#include "io/training_kinds.hpp"

namespace noiselearn {

const std::vector<OptimiserKind>& optimiser_kinds() {
  static const std::vector<OptimiserKind> kinds{
      adam_optimiser_kind(),
      preconditioned_gradient_optimiser_kind(),
      hybrid_renyi_optimiser_kind(),
  };
  return kinds;
}

}  // namespace noiselearn
