#pragma once
// The library's option structs as a training config (io/training_config.hpp) sets them, shared by the optimisers:
// the certified accountant's options, the dominating pair, the training utility; and --resume's check that the
// config is the one the run directory was started with.
#include <filesystem>
#include <string>

#include "accounting/accountant_options.hpp"
#include "core/dominating_pair.hpp"
#include "core/utility.hpp"
#include "io/training_config.hpp"

namespace noiselearn {

// certification.loss_step, tail_mass, max_points, several_pairs, adaptive_budget; validated.
AccountantOptions accountant_options_of(const TrainingConfig& c);

// pair.kind, sensitivity, sampling_rate; certification.shifts, neighbours.
PairSpecification pair_specification_of(const TrainingConfig& c);

// The training utility: optimised, matched against the truncated Gaussian, and reported.
UtilitySpecification utility_of(const TrainingConfig& c);

// --resume: InputError naming the first key of config.yaml in `directory` that differs from `now`, except
// `length_key` (optimiser.epochs for Adam, optimiser.iterations for pgd), which may grow.
void require_same_run(const TrainingConfig& now, const std::filesystem::path& directory, const std::string& length_key);

}  // namespace noiselearn
