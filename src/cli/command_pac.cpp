// noiselearn pac: the PAC-privacy optimal one-sided noise (Xiao et al. Thm 5, Alg. 3, eq. 31 corrected), written as
// a noise table on [0, R], with the mutual-information bound against the second-moment budget
// (run/pac_privacy_run.hpp does the work).
#include <iostream>
#include <memory>

#include "cli/command.hpp"
#include "cli/solver_run.hpp"
#include "run/pac_privacy_run.hpp"

namespace noiselearn::cli {

Command make_pac_command(CLI::App& parent) {
  auto o = std::make_shared<SolverCommandOptions>();
  CLI::App* app = parent.add_subcommand(
      "pac",
      "PAC-privacy optimal one-sided noise: the truncated Gaussian of Xiao et al. Thm 5 / Alg. 3, as a noise table");
  o->add_to(*app);
  return Command{app, [o] {
                   const SolverRunSummary run = run_pac_privacy(o->options());
                   std::cout << (o->json ? run.summary.dump(2) + "\n" : run.report());
                 }};
}

}  // namespace noiselearn::cli
