#pragma once
// `noiselearn maxl` as a library call: the least-cost one-sided perturbation under a Maximal Leakage budget (Xiao et
// al. Thm 4, Alg. 2) for the problem a config describes (io/solver_configs.hpp), its mechanism matrix, and the optimal
// cost against the budget v, written to the run directory (config.yaml, mechanism.csv, states.csv, cost_curve.csv,
// summary.json, plots).
#include "run/solver_run.hpp"

namespace noiselearn {

// InputError for a config, prior, cost formula or cost matrix that does not describe a problem, before any file is
// written.
SolverRunSummary run_maximal_leakage(const SolverRunOptions& options);

}  // namespace noiselearn
