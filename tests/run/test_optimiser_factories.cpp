// run() builds the optimiser a config names by the kind's name (run/optimiser_factories.hpp): every registered
// optimiser.kind (io/optimiser_kinds.cpp) is built by the run layer or by the learners, which say so.
#include <catch2/catch.hpp>

#include "io/training_kinds.hpp"
#include "run/optimiser_factories.hpp"

using namespace noiselearn;

TEST_CASE("every registered optimiser kind has the run layer's factory or names the learners that build it",
          "[run][kinds]") {
  // This suite links the run layer without the learners (no LibTorch): only what the run layer builds is registered.
  for (const auto& kind : optimiser_kinds()) {
    INFO(kind.name);
    if (kind.learner_task.empty())
      CHECK(optimiser_factory(kind.name) != nullptr);
    else
      CHECK(optimiser_factory(kind.name) == nullptr);
  }
  CHECK(optimiser_factory("convex") != nullptr);
  CHECK(optimiser_factory("adam") == nullptr);
  CHECK(optimiser_factory("no-such-kind") == nullptr);
}
