#include "cli/solver_run.hpp"

#include "io/run_directory.hpp"

namespace noiselearn::cli {

void SolverCommandOptions::add_to(CLI::App& app) {
  app.add_option("config", config, "YAML configuration (see configs/ and the README for every key); without it, every key's default");
  app.add_option("--out", out, "Run directory (default: runs/<config name>)");
  app.add_option("--set", overrides, "Override a config key: --set leakage.budget=3.5 (repeatable)");
  app.add_flag("--force", force, "Overwrite a non-empty run directory");
  app.add_flag("--json", json, "Print the summary as JSON (summary.json) instead of text");
}

std::filesystem::path SolverCommandOptions::directory(const std::string& command) const {
  if (!out.empty()) return out;
  return std::filesystem::path("runs") / (config.empty() ? std::filesystem::path(command) : std::filesystem::path(config).stem());
}

std::unique_ptr<RunDirectoryLock> open_run_directory(const std::filesystem::path& directory, bool force) {
  prepare_run_directory(directory, force);
  return std::make_unique<RunDirectoryLock>(directory);
}

}  // namespace noiselearn::cli
