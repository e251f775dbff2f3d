#include "losses/privacy_loss.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"

namespace noiselearn {

DirectionCombination parse_direction_combination(const std::string& text) {
  if (text == "sum") return DirectionCombination::kSum;
  if (text == "max") return DirectionCombination::kMax;
  throw InputError(fmt::format("unknown direction combination '{}' (valid: sum, max)", text));
}

std::string to_string(DirectionCombination combination) {
  return combination == DirectionCombination::kSum ? "sum" : "max";
}

torch::Tensor PrivacyLoss::delta(const DifferentiablePair& pair, DirectionCombination combination) {
  const torch::Tensor forward = direction_delta(pair.forward(), 0);
  const torch::Tensor backward = direction_delta(pair.backward(), 1);
  return combination == DirectionCombination::kSum ? forward + backward : torch::maximum(forward, backward);
}

}  // namespace noiselearn
