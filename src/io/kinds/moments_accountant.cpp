#include "io/kinds/moments_accountant.hpp"

#include <cmath>

namespace noiselearn {

const std::vector<ConfigKey<MomentsAccountantConfig>>& MomentsAccountantConfig::keys() {
  static const std::vector<ConfigKey<MomentsAccountantConfig>> keys = {
      {"loss.moments_lambda_sq", &MomentsAccountantConfig::lambda_sq, "",
       "moments accountant: initial lambda_sq (lambda = lambda_sq^2 + 1e-4)"},
  };
  return keys;
}

void MomentsAccountantConfig::validate() const {
  config_schema::require(std::isfinite(lambda_sq), "loss.moments_lambda_sq", "must be finite");
}

LossKind moments_accountant_loss_kind() { return named_kind("moments-accountant", "Prop. 17"); }

}  // namespace noiselearn
