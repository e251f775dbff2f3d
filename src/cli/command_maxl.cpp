// noiselearn maxl: the least-cost one-sided perturbation under a Maximal Leakage budget (Xiao et al. Thm 4, Alg. 2),
// its mechanism matrix, and the optimal cost against the budget v (run/maximal_leakage_run.hpp does the work).
#include <iostream>
#include <memory>

#include "cli/command.hpp"
#include "cli/solver_run.hpp"
#include "run/maximal_leakage_run.hpp"

namespace noiselearn::cli {

Command make_maxl_command(CLI::App& parent) {
  auto o = std::make_shared<SolverCommandOptions>();
  CLI::App* app = parent.add_subcommand(
      "maxl", "Least-cost one-sided perturbation under a Maximal Leakage budget (Xiao et al. Thm 4, Alg. 2)");
  o->add_to(*app);
  return Command{app, [o] {
                   const SolverRunSummary run = run_maximal_leakage(o->options());
                   std::cout << (o->json ? run.summary.dump(2) + "\n" : run.report());
                 }};
}

}  // namespace noiselearn::cli
