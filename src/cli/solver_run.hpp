#pragma once
// What the solver commands (`maxl`, `pac`) share on the command line: CONFIG, --out, --set, --force, --json, turned
// into the run layer's SolverRunOptions (run/solver_run.hpp).
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "run/solver_run.hpp"

namespace noiselearn::cli {

struct SolverCommandOptions {
  std::string config;  // empty: every key at its default
  std::string out;
  std::vector<std::string> overrides;
  bool force = false;
  bool json = false;

  void add_to(CLI::App& app);
  SolverRunOptions options() const;
};

}  // namespace noiselearn::cli
