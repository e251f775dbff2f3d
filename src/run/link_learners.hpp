#pragma once
// Makes the LibTorch optimisers (Adam, the preconditioned gradient) available to run() (run/learner_factories.hpp).
// In noiselearn::learners; call once before run() trains a neural model or a geometric-tail family. Idempotent.
namespace noiselearn {

void link_learners();

}  // namespace noiselearn
