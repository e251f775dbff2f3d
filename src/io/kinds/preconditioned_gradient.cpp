#include "io/kinds/preconditioned_gradient.hpp"

#include <cmath>

#include "io/training_config.hpp"

namespace noiselearn {

const std::vector<ConfigKey<PreconditionedGradientConfig>>& PreconditionedGradientConfig::keys() {
  using P = PreconditionedGradientConfig;
  static const std::vector<ConfigKey<P>> keys = {
      {"optimiser.iterations", &P::iterations, "iterations", "pgd: largest number of iterations",
       WholeRange{0, 1000000000}},
      {"optimiser.direction", &P::direction, "",
       "pgd: steepest (Alg. 3), lbfgs (ours: L-BFGS in log p, projected) or newton (ours: banded Newton in log p, "
       "Renyi objective)"},
      {"optimiser.line_search_halvings", &P::line_search_halvings, "",
       "pgd: steps mu_ub / 2^k, k = 0 .. this (the paper's 10 stall; 40-60 per the errata; 1 to 200)",
       WholeRange{1, 200}},
      {"optimiser.alpha_update_every", &P::alpha_update_every, "iterations",
       "pgd: alpha update every T iterations (0: alpha fixed)", WholeRange{0, 1000000000}},
      {"optimiser.alpha_update", &P::alpha_update, "",
       "pgd: one Newton step of alpha (newton, Alg. 3) or alpha minimising gamma at the current p (minimise)"},
      {"optimiser.relative_tolerance", &P::relative_tolerance, "",
       "pgd: stop when the relative decrease of the objective stays below this for 5 iterations"},
      {"optimiser.max_seconds", &P::max_seconds, "seconds",
       "pgd: stop after this much time (0: no limit; each stage of a warm-started run)"},
      {"optimiser.warm_start", &P::warm_start, "",
       "pgd with loss.kind = soft-pld: none (start at Alg. 2's Gaussian) or renyi (first the preconditioned gradient "
       "on "
       "Gilani et al.'s gamma by the newton direction with alpha updated every iteration, then on the soft-PLD "
       "objective from its "
       "table with optimiser.direction)"},
      {"optimiser.warm_start_iterations", &P::warm_start_iterations, "iterations",
       "pgd: iterations of the renyi warm start (0: optimiser.iterations)", WholeRange{0, 1000000000}},
  };
  return keys;
}

void PreconditionedGradientConfig::validate() const {
  using config_schema::require;
  using config_schema::require_one_of;
  require_one_of(direction, "optimiser.direction", {"steepest", "lbfgs", "newton"});
  require_one_of(alpha_update, "optimiser.alpha_update", {"newton", "minimise"});
  require_one_of(warm_start, "optimiser.warm_start", {"none", "renyi"});
  require(relative_tolerance >= 0.0 && relative_tolerance < 1.0, "optimiser.relative_tolerance", "must be in [0, 1)");
  require(max_seconds >= 0.0 && std::isfinite(max_seconds), "optimiser.max_seconds", "must be finite and >= 0");
}

OptimiserKind preconditioned_gradient_optimiser_kind() {
  OptimiserKind kind;
  kind.name = "pgd";
  kind.summary = "Gilani et al. Alg. 3, corrected: preconditioned projected gradient on model.kind = geometric-tail";
  kind.resumable_length_key = [](const TrainingConfig&) -> std::string { return "optimiser.iterations"; };
  kind.learner_task = "training a geometric-tail family";
  return kind;
}

}  // namespace noiselearn
