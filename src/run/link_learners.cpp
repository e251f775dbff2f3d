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

namespace {

// Registers the learners while the program starts, so that linking noiselearn::learners is all a program does to
// train with run(). set_learner_factories() keeps its table in a function-local static, so the order in which
// translation units are initialised does not matter.
int register_learners() {
  link_learners();
  return 1;
}

}  // namespace

}  // namespace noiselearn

// Defined here, in the object that registers the learners, so that keeping it keeps the registration.
extern "C" {
int noiselearn_learners_registration = noiselearn::register_learners();
}
