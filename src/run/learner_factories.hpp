#pragma once
// The optimisers that learn with LibTorch (Adam on the neural models, adam_optimiser.hpp; the preconditioned gradient
// on the geometric-tail families, preconditioned_gradient_optimiser.hpp) live in their own library,
// noiselearn_learners, apart from the run layer. So whatever does not train them (the CLI's other commands, the
// convex HRDP program, the solvers, a service that only certifies) starts without loading LibTorch (0.5-0.7 s a
// process). run() finds them through these factories, which noiselearn::learners fills itself when a program links it
// (link_learners.cpp: a static initialiser, kept by the target's link option; link_learners() does the same by hand).
#include <memory>

#include "io/training_config.hpp"
#include "run/run_optimiser.hpp"

namespace noiselearn {

struct LearnerFactories {
  std::unique_ptr<RunOptimiser> (*adam)(const RunOptions&, const TrainingConfig&) = nullptr;
  std::unique_ptr<RunOptimiser> (*preconditioned_gradient)(const RunOptions&, const TrainingConfig&) = nullptr;
};

void set_learner_factories(const LearnerFactories& factories);
const LearnerFactories& learner_factories();

}  // namespace noiselearn
