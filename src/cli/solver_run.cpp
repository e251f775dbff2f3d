#include "cli/solver_run.hpp"

namespace noiselearn::cli {

void SolverCommandOptions::add_to(CLI::App& app) {
  app.add_option("config", config,
                 "YAML configuration (see configs/README.md for every key); without it, every key's default");
  app.add_option("--out", out, "Run directory (default: runs/<config name>)");
  app.add_option("--set", overrides, "Override a config key: --set leakage.budget=3.5 (repeatable)");
  app.add_flag("--force", force, "Overwrite a non-empty run directory");
  app.add_flag("--json", json, "Print the summary as JSON (summary.json) instead of text");
}

SolverRunOptions SolverCommandOptions::options() const {
  SolverRunOptions o;
  o.config_path = config;
  o.overrides = overrides;
  o.directory = out;
  o.force = force;
  return o;
}

}  // namespace noiselearn::cli
