// Runs the convex HRDP program on a small one-sided grid through the installed run layer (run/run.hpp) and checks
// what a C++ caller relies on: the run directory holds the table it returned, and the certificate is consistent with
// the HRDP guarantee it was solved for (HRDP epsilon 4 at delta 1e-5 implies (4, 1e-5)-DP, so the certified lower
// bound on epsilon(1e-5) is at most 4, and lower <= upper). Usage: run_consumer WORK_DIR. Exit 0 when all hold.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "run/run.hpp"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::filesystem::path work = argv[1];
  std::ofstream(work / "hrdp.yaml") << "grid: {range: 60, step: 1}\n"
                                       "model: {kind: free-logits, support: one-sided}\n"
                                       "loss: {kind: hrdp, epsilon: 4, delta: 1.0e-5, compositions: 5, alpha: 0}\n"
                                       "utility: {kind: second-moment}\n"
                                       "optimiser: {kind: convex}\n"
                                       "certification: {deltas: [1.0e-5], loss_step: 1.0e-3}\n"
                                       "output: {plots: false}\n";
  noiselearn::RunOptions options;
  options.config_path = (work / "hrdp.yaml").string();
  options.directory = work / "hrdp-run";
  options.force = true;
  const noiselearn::RunSummary summary = noiselearn::run(options);
  std::cout << summary.report();
  const auto& e = summary.certificate->epsilons.front();
  const bool ok = std::filesystem::exists(work / "hrdp-run" / "noise.csv") &&
                  std::filesystem::exists(work / "hrdp-run" / "summary.txt") && e.delta == 1e-5 &&
                  e.epsilon_lower <= 4.0 && e.epsilon_lower <= e.epsilon_upper && !summary.stopped_early;
  std::printf("run layer: certified epsilon(1e-5) in [%.6f, %.6f] %s\n", e.epsilon_lower, e.epsilon_upper,
              ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
