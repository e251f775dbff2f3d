#pragma once
// The preconditioned gradient on the geometric-tail families (Gilani et al.) as a run's optimiser (model.kind =
// geometric-tail): the Gaussian start of Alg. 2 under the cost constraint, then the preconditioned projected gradient
// of Alg. 3 (corrected) on gamma(alpha) of eq. 25 (loss.kind = renyi) or on the soft-PLD epsilon of the composed
// envelope (loss.kind = soft-pld, optionally after a Renyi warm start), with checkpoints and --resume. The table is
// compared with the noises of the same cost (same_cost_comparison.hpp).
#include <memory>

#include "io/training_config.hpp"
#include "run/run_optimiser.hpp"

namespace noiselearn {

std::unique_ptr<RunOptimiser> make_preconditioned_gradient_optimiser(const RunOptions& options,
                                                                     const TrainingConfig& config);

}  // namespace noiselearn
