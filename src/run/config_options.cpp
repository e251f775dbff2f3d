#include "run/config_options.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"

namespace noiselearn {

namespace fs = std::filesystem;

AccountantOptions accountant_options_of(const TrainingConfig& c) {
  AccountantOptions o;
  o.loss_step = c.certification_loss_step;
  o.tail_mass = c.certification_tail_mass;
  o.max_points = c.certification_max_points;
  o.several_pairs = parse_several_pairs_method(c.certification_several_pairs);
  o.adaptive_budget = c.certification_adaptive_budget;
  o.adaptive_block_budget = c.certification_adaptive_block_budget;
  o.validate();
  return o;
}

PairSpecification pair_specification_of(const TrainingConfig& c) {
  PairSpecification p;
  p.kind = parse_pair_kind(c.pair_kind);
  p.sensitivity = c.pair_sensitivity;
  p.sampling_rate = c.pair_sampling_rate;
  p.shifts = parse_shift_policy(c.certification_shifts);
  p.neighbours = parse_neighbour_relation(c.certification_neighbours);
  return p;
}

UtilitySpecification utility_of(const TrainingConfig& c) {
  return UtilitySpecification{parse_utility_kind(c.utility_kind), c.utility_tail_threshold};
}

// --resume continues the run that config.yaml describes: any key but the length of the run (optimiser.epochs, or
// optimiser.iterations for pgd) changed would make the resumed table the product of two different runs.
void require_same_run(const TrainingConfig& now, const fs::path& directory, const std::string& length_key) {
  const fs::path recorded_path = directory / "config.yaml";
  if (!fs::exists(recorded_path)) throw InputError(fmt::format("--resume: {} has no config.yaml", directory.string()));
  const TrainingConfig recorded = TrainingConfig::load(recorded_path);
  for (const auto& key : TrainingConfig::schema()) {
    if (key.name == length_key) continue;
    if (now.value_of(key) != recorded.value_of(key))
      throw InputError(fmt::format("--resume: {} is {} here but {} in {}; only {} may change when resuming "
                                   "(start afresh with --force to change it)",
                                   key.name, now.value_of(key), recorded.value_of(key), recorded_path.string(), length_key));
  }
}

}  // namespace noiselearn
