#pragma once
// Adam with learning-rate and utility-weight decay on the neural noise models (Sommer et al.; train/trainer.hpp),
// as a run's optimiser: a plain run of optimiser.epochs (checkpoints, --resume), or target mode, a search over fixed
// utility weights judged by the certificate (train/target_search.hpp). The table is compared with the truncated
// Gaussian of the same utility and of the same certified delta (solvers/baseline_comparison.hpp).
#include <memory>

#include "io/training_config.hpp"
#include "run/run_optimiser.hpp"

namespace noiselearn {

// Builds the model and the loss the config names (InputError for what it cannot build). Seeds LibTorch's
// generator with optimiser.seed first, so that the model's initial parameters are the seed's.
std::unique_ptr<RunOptimiser> make_adam_optimiser(const RunOptions& options, const TrainingConfig& config);

}  // namespace noiselearn
