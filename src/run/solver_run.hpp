#pragma once
// What the solver runs (`maxl`, `pac`: maximal_leakage_run.hpp, pac_privacy_run.hpp) share: the config with its
// overrides, the run directory (runs/<config name>, or runs/<command> without a config; refused when it holds files,
// unless force; locked while they write, as for train), and what they return: summary.json and the text report.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/run_directory_lock.hpp"

namespace noiselearn {

struct SolverRunOptions {
  std::string config_path;  // empty: every key at its default
  std::vector<std::string> overrides;
  std::filesystem::path directory;  // empty: runs/<config stem>, or runs/<command> without a config
  bool force = false;

  std::filesystem::path run_directory(const std::string& command) const;
};

struct SolverRunSummary {
  std::filesystem::path directory;
  nlohmann::json summary;  // summary.json
  std::string text;        // the report for a reader, ending with the run directory

  std::string report() const { return text; }
};

// Creates (or, with force, reuses) the run directory and locks it; call only when the input is understood.
std::unique_ptr<RunDirectoryLock> open_run_directory(const std::filesystem::path& directory, bool force);

}  // namespace noiselearn
