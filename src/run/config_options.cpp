#include "run/config_options.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"
#include "io/release_settings.hpp"

namespace noiselearn {

namespace fs = std::filesystem;

AccountantOptions accountant_options_of(const TrainingConfig& c) {
  AccountantSettings given;
  given.loss_step = c.certification_loss_step;
  given.tail_mass = c.certification_tail_mass;
  given.max_points = c.certification_max_points;
  given.several_pairs = c.certification_several_pairs;
  given.adaptive_budget = c.certification_adaptive_budget;
  given.adaptive_block_budget = c.certification_adaptive_block_budget;
  return resolve_accountant(given, std::nullopt);
}

PairSpecification pair_specification_of(const TrainingConfig& c) {
  PairSettings given;
  given.kind = c.pair_kind;
  given.sensitivity = c.pair_sensitivity;
  given.sampling_rate = c.pair_sampling_rate;
  given.shifts = c.certification_shifts;
  given.neighbours = c.certification_neighbours;
  return resolve_pair(given, RecordedCertification{}, SettingNames::kConfig, true);
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
      throw InputError(
          fmt::format("--resume: {} is {} here but {} in {}; only {} may change when resuming "
                      "(start afresh with --force to change it)",
                      key.name, now.value_of(key), recorded.value_of(key), recorded_path.string(), length_key));
  }
}

}  // namespace noiselearn
