#pragma once
// `noiselearn pac` as a library call: the PAC-privacy optimal one-sided noise, the truncated Gaussian of Xiao et al.
// Thm 5 / Alg. 3 (eq. 31 corrected), as a noise table on [0, R], with its mutual-information curve against the budget,
// written to the run directory (config.yaml, noise.csv/.json, mi_curve.csv, summary.json, plots).
#include "run/solver_run.hpp"

namespace noiselearn {

SolverRunSummary run_pac_privacy(const SolverRunOptions& options);

}  // namespace noiselearn
