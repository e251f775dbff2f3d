#include "run/link_learners.hpp"

#include "run/adam_optimiser.hpp"
#include "run/optimiser_factories.hpp"
#include "run/preconditioned_gradient_optimiser.hpp"

namespace noiselearn {

// The optimisers of this library, one line each, under their optimiser.kind (io/optimiser_kinds.cpp).
void link_learners() {
  register_optimiser_factory("adam", &make_adam_optimiser);
  register_optimiser_factory("pgd", &make_preconditioned_gradient_optimiser);
}

namespace {

// Registers the learners while the program starts, so that linking noiselearn::learners is all a program does to
// train with run(). register_optimiser_factory() keeps its table in a function-local static, so the order in which
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
