#include "io/kinds/hybrid_renyi_program.hpp"

#include "core/errors.hpp"
#include "io/config_schema.hpp"
#include "io/training_config.hpp"

namespace noiselearn {

OptimiserKind hybrid_renyi_optimiser_kind() {
  using config_schema::require;
  OptimiserKind kind;
  kind.name = "convex";
  kind.summary =
      "Xiao et al. eq. 25-27, corrected: the least-cost one-sided table under the HRDP budget, one convex program "
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
    throw InputError(
        "--resume does not apply to optimiser.kind = convex (the solve takes seconds and keeps no checkpoint)");
  };
  return kind;
}

}  // namespace noiselearn
