#pragma once
// The convex Hybrid Renyi DP program as a run's optimiser (model.support = one-sided, optimiser.kind = convex; Xiao
// et al., section 4.3, eq. 25-27 as corrected in experiments/errata.md, E-Xiao-4 and E-Xiao-5): the least-cost
// table on {0, h, .., R0 h} whose HRDP
// epsilon after T releases is at most loss.epsilon at loss.delta, found exactly by solvers/hybrid_renyi_optimum.hpp
// (alpha fixed or searched). In target mode (target.mode = delta) the HRDP budget is raised by bisection to the
// largest whose optimum still certifies delta(loss.epsilon) <= target.delta. As for every run, the certificate from
// the certified accountant (the exact PLD of the T-fold composition, both bounds) is the guarantee; the HRDP epsilon
// is reported beside it. No checkpoints: the solve takes seconds.
#include <memory>

#include "io/training_config.hpp"
#include "run/run_optimiser.hpp"

namespace noiselearn {

std::unique_ptr<RunOptimiser> make_hybrid_renyi_optimiser(const RunOptions& options, const TrainingConfig& config);

}  // namespace noiselearn
