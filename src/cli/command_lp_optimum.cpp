// noiselearn lp-optimum: the exact single-release optimum by linear programming (run/lp_optimum_run.hpp), certified
// and written as a noise table: the yardstick of every one-release result.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/cli_common.hpp"
#include "cli/command.hpp"
#include "core/errors.hpp"
#include "run/lp_optimum_run.hpp"

namespace noiselearn::cli {

Command make_lp_optimum_command(CLI::App& parent) {
  auto o = std::make_shared<LpOptimumRunOptions>();
  auto cost = std::make_shared<std::string>(to_string(o->cost));
  auto shapes = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  auto accountant = std::make_shared<AccountantCliOptions>();
  CLI::App* app = parent.add_subcommand(
      "lp-optimum",
      "The exact single-release optimum (linear program, GLPK): least delta, cost or epsilon on a grid, certified");
  app->add_option("--grid-step", o->grid_step, "Grid step h, x units")->required();
  app->add_option("--range", o->range,
                  "The grid is [-R, R] (or [0, R] with --one-sided), x units; a whole number of steps")
      ->required();
  app->add_flag("--one-sided", o->one_sided, "Noise on [0, R] only (dummies, delays)");
  app->add_option("--sensitivity", o->sensitivity,
                  "s: every query difference in [-s, s], x units; a whole number of steps")
      ->capture_default_str();
  app->add_option("--minimise", o->minimise,
                  "delta (at --epsilon, cost <= --cost-budget), cost (at --epsilon, --delta) or epsilon "
                  "(at --delta, cost <= --cost-budget)")
      ->capture_default_str();
  app->add_option("--epsilon", o->epsilon, "epsilon, nats (minimise delta or cost)");
  app->add_option("--delta", o->delta, "delta (minimise cost or epsilon)");
  app->add_option("--cost-budget", o->cost_budget,
                  "the cost's upper bound (minimise delta or epsilon), in the cost's units");
  app->add_option("--cost", *cost, "l1 (E|e|), second-moment (E[e^2]), mean (E[e]) or tail-probability (Pr[|e| > tau])")
      ->capture_default_str();
  app->add_option("--tail-threshold", o->tail_threshold, "tau of the tail-probability cost, x units")
      ->capture_default_str();
  app->add_option("--shape", *shapes, "symmetric and/or monotone (away from 0): restrict the tables (repeatable)");
  app->add_option("--certify-epsilon", o->certificate_epsilons, "Also certify delta at this epsilon (repeatable)");
  app->add_option("--certify-delta", o->certificate_deltas, "Also certify epsilon at this delta (repeatable)");
  accountant->add_to(*app);
  app->add_option("--out", *out, "Write the table: a .csv path, or a directory that receives noise.csv and noise.json");
  app->add_flag("--force", o->force, "Overwrite an existing --out table");
  return Command{app, [o, cost, shapes, out, accountant] {
                   o->cost = parse_lp_cost(*cost);
                   for (const auto& shape : *shapes) {
                     if (shape == "symmetric")
                       o->symmetric = true;
                     else if (shape == "monotone")
                       o->monotone = true;
                     else
                       throw InputError("--shape " + shape + ": must be symmetric or monotone");
                   }
                   o->accountant = accountant->options();
                   if (!out->empty()) o->out = table_output_path(*out);
                   const LpOptimumRun run = run_lp_optimum(*o);
                   std::cout << run.report();
                   std::cout << (o->out.empty()
                                     ? std::string("no --out: nothing written (give --out PATH to write the table "
                                                   "with its certificate)\n")
                                     : "wrote " + o->out.string() + " and its certificate\n");
                 }};
}

}  // namespace noiselearn::cli
