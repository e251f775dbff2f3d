#pragma once
// `noiselearn train` for model.kind = geometric-tail (Gilani et al.): the Gaussian start of Alg. 2 under the
// cost constraint, the preconditioned projected gradient of Alg. 3 (corrected) on gamma(alpha) of eq. 25, then,
// as for every run, the certificate from the certified accountant (never from the training objective), the
// comparison with the Gaussian and Laplace mechanisms of the same cost, the run directory and the summary.
#include "cli/train_setup.hpp"

namespace noiselearn::cli {

// Runs a geometric-tail training (the config must name model.kind = geometric-tail).
void run_train_family(const TrainOptions& options);

}  // namespace noiselearn::cli
