#pragma once
// A run of `noiselearn train` as a library call: resolved config -> optimiser -> best certified table -> certificate
// -> comparison -> run directory. The one pipeline every optimiser shares (run_optimiser.hpp).
//
//   RunOptions options;
//   options.config_path = "configs/default.yaml";
//   const RunSummary summary = run(options);
//   std::cout << summary.report();
//
// Bad input (a config, a sensitivity off the grid, a directory that holds another run) throws InputError before
// anything is written; a NaN guard is not thrown but reported (RunSummary::stopped_early), after the last good
// table and its certificate are written.
#include "run/run_options.hpp"
#include "run/run_summary.hpp"

namespace noiselearn {

RunSummary run(const RunOptions& options);

}  // namespace noiselearn
