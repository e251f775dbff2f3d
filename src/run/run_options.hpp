#pragma once
// What a run is asked to do (the Options half of the run layer's Options -> Summary, in the style of Ceres Solver's
// Solver::Options): which config, with which overrides, into which run directory, and whether to resume or skip.
// Everything about *how* to learn is in the config (io/training_config.hpp); these are the few facts that are not.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/noise_table.hpp"
#include "io/training_config.hpp"

namespace noiselearn {

struct RunOptions {
  std::string config_path;             // the YAML config; named in the table's provenance
  std::vector<std::string> overrides;  // "key=value", applied after the file (TrainingConfig::load)
  std::optional<int64_t> seed;         // overrides optimiser.seed
  std::filesystem::path directory;     // the run directory; empty: runs/<config file's stem>
  bool force = false;                  // reuse a non-empty run directory
  bool resume = false;                 // continue from the run directory's checkpoint.pt
  bool skip_if_complete = false;       // do nothing if the directory already holds this run, complete
  // How a table named by the config (model.init_table) is read; the default reads it strictly
  // (io/table_files.hpp). The CLI passes its own, which honours --renormalise and says how to fix a bad sum.
  std::function<NoiseTable(const std::filesystem::path&)> read_table;

  // The config file with the overrides and the seed, validated (InputError naming the key otherwise).
  TrainingConfig resolved_config() const;
  // `directory`, or runs/<config stem>.
  std::filesystem::path run_directory() const;
  // read_table, or the strict default.
  NoiseTable table_at(const std::filesystem::path& path) const;
};

}  // namespace noiselearn
