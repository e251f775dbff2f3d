#pragma once
// loss.kind = moments-accountant (Sommer et al. Prop. 17): its options and its registration. The loss lives in
// losses/moments_accountant_loss.
#include <vector>

#include "io/config_schema.hpp"
#include "io/training_kinds.hpp"

namespace noiselearn {

struct MomentsAccountantConfig {
  double lambda_sq = 1.0;  // the trained order's start: lambda = lambda_sq^2 + 1e-4

  static const std::vector<ConfigKey<MomentsAccountantConfig>>& keys();
  void validate() const;
};

LossKind moments_accountant_loss_kind();

}  // namespace noiselearn
