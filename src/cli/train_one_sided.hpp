#pragma once
// `noiselearn train` for model.support = one-sided with optimiser.kind = convex (Xiao et al., section 4.3, eq. 25-27
// as corrected in the errata): the least-cost table on {0, h, .., R0 h} whose Hybrid Renyi DP epsilon after T
// releases is at most loss.epsilon at loss.delta, found exactly by solvers/hybrid_renyi_optimum.hpp (alpha fixed or
// searched); then, as for every run, the certificate from the certified accountant (the exact PLD of the T-fold
// composition, both bounds), which is the guarantee; the HRDP epsilon is reported beside it.
#include "cli/train_setup.hpp"

namespace noiselearn::cli {

void run_train_one_sided(const TrainOptions& options);

}  // namespace noiselearn::cli
