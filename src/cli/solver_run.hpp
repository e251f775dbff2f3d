#pragma once
// What the solver commands (`maxl`, `pac`) share: CONFIG, --out, --set, --force, --json, and the run directory
// they write into (refused when it holds files, unless --force; locked while they write, as for train).
#include <CLI/CLI.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "io/run_directory_lock.hpp"

namespace noiselearn::cli {

struct SolverCommandOptions {
  std::string config;  // empty: every key at its default
  std::string out;
  std::vector<std::string> overrides;
  bool force = false;
  bool json = false;

  void add_to(CLI::App& app);
  // --out, or runs/<config name>, or runs/<command> without a config.
  std::filesystem::path directory(const std::string& command) const;
};

// Creates (or, with --force, reuses) the run directory and locks it; call only when the input is understood.
std::unique_ptr<RunDirectoryLock> open_run_directory(const std::filesystem::path& directory, bool force);

}  // namespace noiselearn::cli
