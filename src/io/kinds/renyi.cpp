#include "io/kinds/renyi.hpp"

namespace noiselearn {

const std::vector<ConfigKey<RenyiConfig>>& RenyiConfig::keys() {
  static const std::vector<ConfigKey<RenyiConfig>> keys = {
      {"loss.rdp_conversion", &RenyiConfig::rdp_conversion, "",
       "renyi: RDP to (epsilon, delta): mironov (Prop. 3, eq. 25) or balle (Balle et al. 2020, Thm 21; tighter)"},
      {"loss.alpha_update", &RenyiConfig::alpha_update, "",
       "renyi with adam: alpha trained by gradient or moved by a Newton step each epoch (newton)"},
  };
  return keys;
}

void RenyiConfig::validate() const {
  config_schema::require_one_of(rdp_conversion, "loss.rdp_conversion", {"mironov", "balle"});
  config_schema::require_one_of(alpha_update, "loss.alpha_update", {"gradient", "newton"});
}

LossKind renyi_loss_kind() {
  LossKind kind =
      named_kind("renyi",
                 "Renyi DP converted to delta at loss.epsilon with Adam; with optimiser.kind = pgd: Gilani et "
                 "al.'s gamma, epsilon at loss.delta");
  // The listing says here, after the family's other loss, what soft-pld is for the family (configs/README.md).
  kind.aside =
      "with model.kind = geometric-tail, soft-pld is the soft epsilon at loss.delta (or log delta at loss.epsilon) of "
      "the composed envelope over the shifts, the certified quantity made smooth";
  return kind;
}

}  // namespace noiselearn
