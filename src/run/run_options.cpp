#include "run/run_options.hpp"

#include "io/table_files.hpp"

namespace noiselearn {

TrainingConfig RunOptions::resolved_config() const {
  TrainingConfig config = TrainingConfig::load(config_path, overrides);
  if (seed) {
    config.optimiser_seed = *seed;
    config.validate();
  }
  return config;
}

std::filesystem::path RunOptions::run_directory() const {
  return directory.empty() ? std::filesystem::path("runs") / std::filesystem::path(config_path).stem() : directory;
}

NoiseTable RunOptions::table_at(const std::filesystem::path& path) const {
  return read_table ? read_table(path) : read_noise_table(path).table;
}

}  // namespace noiselearn
