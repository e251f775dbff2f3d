#include "io/kinds/hybrid_renyi_loss.hpp"

#include "io/config_schema.hpp"
#include "io/training_config.hpp"

namespace noiselearn {

LossKind hybrid_renyi_loss_kind() {
  LossKind kind = named_kind("hrdp",
                             "Xiao et al. Def. 7, Thm 2: with optimiser.kind = convex, Hybrid Renyi DP of T = "
                             "loss.compositions releases at loss.delta must not exceed loss.epsilon; with adam, eq. "
                             "24's delta = T delta_p + exp(T G - (alpha - 1) loss.epsilon) is the surrogate, alpha "
                             "trained as for renyi");
  kind.validate = [](const TrainingConfig& c) {
    config_schema::require(c.optimiser_kind == "convex" || c.optimiser_kind == "adam", "loss.kind",
                           "hrdp needs optimiser.kind = convex or adam");
  };
  return kind;
}

}  // namespace noiselearn
