// The registry of training losses (loss.kind): one entry per kind. A new loss is its own files in losses/, one line
// building it in train/factories.cpp, and one entry here.
#include <string>

#include "io/config_schema.hpp"
#include "io/training_config.hpp"
#include "io/training_kinds.hpp"

namespace noiselearn {

namespace {


LossKind renyi_loss_kind() {
  LossKind kind = named_kind("renyi", "Renyi DP converted to delta at loss.epsilon with Adam; with optimiser.kind = pgd: Gilani et "
                                      "al.'s gamma, epsilon at loss.delta");
  // configs/README.md has always said here, after the family's other loss, what soft-pld is for the family.
  kind.aside = "with model.kind = geometric-tail, soft-pld is the soft epsilon at loss.delta (or log delta at loss.epsilon) of "
               "the composed envelope over the shifts, the certified quantity made smooth";
  return kind;
}

LossKind hybrid_renyi_loss_kind() {
  LossKind kind = named_kind("hrdp", "Xiao et al. Def. 7, Thm 2: with optimiser.kind = convex, Hybrid Renyi DP of T = "
                                     "loss.compositions releases at loss.delta must not exceed loss.epsilon; with adam, eq. "
                                     "24's delta = T delta_p + exp(T G - (alpha - 1) loss.epsilon) is the surrogate, alpha "
                                     "trained as for renyi");
  kind.validate = [](const TrainingConfig& c) {
    config_schema::require(c.optimiser_kind == "convex" || c.optimiser_kind == "adam", "loss.kind",
                           "hrdp needs optimiser.kind = convex or adam");
  };
  return kind;
}

}  // namespace

const std::vector<LossKind>& loss_kinds() {
  static const std::vector<LossKind> kinds{
      named_kind("soft-pld", "ours"),
      named_kind("moments-accountant", "Prop. 17"),
      named_kind("privacy-buckets-adp", ""),
      named_kind("privacy-buckets-pdp", ""),
      renyi_loss_kind(),
      hybrid_renyi_loss_kind(),
  };
  return kinds;
}

}  // namespace noiselearn
