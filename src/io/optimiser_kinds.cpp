// The registry of optimiser kinds (optimiser.kind): one entry per kind. A new optimiser is its implementation of
// RunOptimiser in src/run (with one line registering its factory: run/optimiser_factories.cpp, or link_learners.cpp
// for one that learns with LibTorch) and one entry here.
#include <string>

#include "core/errors.hpp"
#include "io/config_schema.hpp"
#include "io/training_config.hpp"
#include "io/training_kinds.hpp"

namespace noiselearn {

namespace {

using config_schema::require;

OptimiserKind adam_optimiser_kind() {
  OptimiserKind kind;
  kind.name = "adam";
  kind.summary = "Sommer et al.; grid models";
  kind.resumable_length_key = [](const TrainingConfig& c) -> std::string {
    if (c.target_mode != "none") throw InputError("--resume continues a plain run; it does not apply to target.mode");
    return "optimiser.epochs";
  };
  kind.learner_task = "training a neural model with Adam";
  return kind;
}

OptimiserKind preconditioned_gradient_optimiser_kind() {
  OptimiserKind kind;
  kind.name = "pgd";
  kind.summary = "Gilani et al. Alg. 3, corrected: preconditioned projected gradient on model.kind = geometric-tail";
  kind.resumable_length_key = [](const TrainingConfig&) -> std::string { return "optimiser.iterations"; };
  kind.learner_task = "training a geometric-tail family";
  return kind;
}

OptimiserKind hybrid_renyi_optimiser_kind() {
  OptimiserKind kind;
  kind.name = "convex";
  kind.summary = "Xiao et al. eq. 25-27, corrected: the least-cost one-sided table under the HRDP budget, one convex program "
                 "per alpha solved by an interior-point method; model.support = one-sided, loss.kind = hrdp";
  kind.validate = [](const TrainingConfig& c) {
    require(c.one_sided(), "optimiser.kind", "convex applies to model.support = one-sided only");
    require(c.loss_kind == "hrdp", "loss.kind", "must be hrdp for optimiser.kind = convex");
    require(c.utility_kind == "second-moment" || c.utility_kind == "l1", "utility.kind",
            "must be second-moment (E[e^2]) or l1 (E[e]) for optimiser.kind = convex");
    require(c.target_mode != "utility", "target.mode",
            "must be none or delta for optimiser.kind = convex (the cost is what the program minimises)");
    require(c.pair_kind == "additive", "pair.kind", "must be additive for optimiser.kind = convex");
  };
  kind.resumable_length_key = [](const TrainingConfig&) -> std::string {
    throw InputError("--resume does not apply to optimiser.kind = convex (the solve takes seconds and keeps no checkpoint)");
  };
  return kind;
}

}  // namespace

const std::vector<OptimiserKind>& optimiser_kinds() {
  static const std::vector<OptimiserKind> kinds{
      adam_optimiser_kind(),
      preconditioned_gradient_optimiser_kind(),
      hybrid_renyi_optimiser_kind(),
  };
  return kinds;
}

}  // namespace noiselearn
