#include "run/learner_factories.hpp"

namespace noiselearn {

namespace {

LearnerFactories& installed() {
  static LearnerFactories factories;
  return factories;
}

}  // namespace

void set_learner_factories(const LearnerFactories& factories) { installed() = factories; }

const LearnerFactories& learner_factories() { return installed(); }

}  // namespace noiselearn
