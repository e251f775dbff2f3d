#include "run/link_learners.hpp"

#include "run/adam_optimiser.hpp"
#include "run/learner_factories.hpp"
#include "run/preconditioned_gradient_optimiser.hpp"

namespace noiselearn {

void link_learners() {
  LearnerFactories factories;
  factories.adam = &make_adam_optimiser;
  factories.preconditioned_gradient = &make_preconditioned_gradient_optimiser;
  set_learner_factories(factories);
}

}  // namespace noiselearn
