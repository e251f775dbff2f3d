#pragma once
// loss.kind = soft-pld (ours): its options, the loss.soft_pld_* keys, and its registration. The loss itself lives in
// losses/soft_pld_loss (grid models, with Adam) and losses/soft_pld_family_objective (the geometric-tail family, with
// pgd).
#include <string>
#include <vector>

#include "io/config_schema.hpp"
#include "io/training_kinds.hpp"

namespace noiselearn {

struct SoftPldConfig {
  double loss_step = 1e-3;  // nats: the soft PLD's loss grid, for every model
  // On the geometric-tail family (model.kind = geometric-tail, optimiser.kind = pgd):
  std::string minimise = "epsilon";  // epsilon (at loss.delta) or log-delta (at loss.epsilon)
  std::string shifts = "envelope";   // envelope or worst-shift

  static const std::vector<ConfigKey<SoftPldConfig>>& keys();
  void validate() const;
};

LossKind soft_pld_loss_kind();

}  // namespace noiselearn
