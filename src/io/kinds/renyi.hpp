#pragma once
// loss.kind = renyi (Gilani et al.'s gamma with pgd; Renyi DP converted to delta with Adam): its options and its
// registration. The losses live in losses/renyi_loss and losses/renyi_objective. loss.alpha and loss.delta, which hrdp
// reads too, stay with the loss section's shared keys.
#include <string>
#include <vector>

#include "io/config_schema.hpp"
#include "io/training_kinds.hpp"

namespace noiselearn {

struct RenyiConfig {
  std::string rdp_conversion = "mironov";  // mironov or balle
  std::string alpha_update = "gradient";   // with Adam: gradient or newton (hrdp with Adam reads it too)

  static const std::vector<ConfigKey<RenyiConfig>>& keys();
  void validate() const;
};

LossKind renyi_loss_kind();

}  // namespace noiselearn
