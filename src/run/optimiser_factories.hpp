#pragma once
// How run() builds the optimiser a config names: one factory per optimiser.kind, found by the kind's name (the kinds
// themselves, with their rules and what --resume may grow, are registered below the run layer, in
// io/optimiser_kinds.cpp, so that the config is validated and documented without it).
//
// The run layer registers the optimisers it builds itself (optimiser_factories.cpp, one line each: the convex HRDP
// program). The optimisers that learn with LibTorch (Adam on the neural models, adam_optimiser.hpp; the
// preconditioned gradient on the geometric-tail families, preconditioned_gradient_optimiser.hpp) live in their own
// library, noiselearn_learners, apart from the run layer. So whatever does not train them (the CLI's other commands,
// the convex HRDP program, the solvers, a service that only certifies) starts without loading LibTorch (src/README.md,
// "Building fast"). That library registers its factories itself when a program links it (link_learners.cpp, one line
// each: a static initialiser, kept by the target's link option; link_learners() does the same by hand).
#include <memory>
#include <string>

#include "io/training_config.hpp"
#include "run/run_optimiser.hpp"

namespace noiselearn {

using OptimiserFactory = std::unique_ptr<RunOptimiser> (*)(const RunOptions&, const TrainingConfig&);

// Makes `factory` the one of optimiser.kind = `kind` (registering the same one again changes nothing).
void register_optimiser_factory(const std::string& kind, OptimiserFactory factory);
// The factory of optimiser.kind = `kind`; nullptr where none is registered (a learner whose library is not linked).
OptimiserFactory optimiser_factory(const std::string& kind);

}  // namespace noiselearn
