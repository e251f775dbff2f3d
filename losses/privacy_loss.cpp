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

bool is_mirror_symmetric(const DifferentiablePair& pair) {
  torch::NoGradGuard guard;
  return pair.log_a.dim() == 1 && pair.log_a.sizes() == pair.log_b.sizes() && torch::equal(pair.log_b, pair.log_a.flip(0));
}

torch::Tensor PrivacyLoss::delta(const DifferentiablePair& pair, DirectionCombination combination) {
  if (symmetric_shortcut && !has_direction_parameters() && is_mirror_symmetric(pair)) {
    // B||A is A||B with the outcomes in reverse order: one evaluation serves both. On a' = (a + flip b) / 2,
    // b' = (b + flip a) / 2 (equal to a and b bit for bit, their means of equal numbers being exact) the
    // gradient of 2 D(a', b') is that of D(a, b) + D(b, a): ∇_a D(a, b) + flip ∇_b D(a, b), the second term being
    // the gradient of the reversed direction. For the maximum, D(a', b') gets half of each (torch's rule at a
    // tie); the per-direction evaluation differs from it by rounding only, and then takes one direction's
    // gradient. The two are the same gradient for a model whose tables are symmetric for every parameter value.
    const torch::Tensor a = 0.5 * (pair.log_a + pair.log_b.flip(0));
    const torch::Tensor b = 0.5 * (pair.log_b + pair.log_a.flip(0));
    const torch::Tensor one = direction_delta(LogPair{a, b}, 0);
    return combination == DirectionCombination::kSum ? 2.0 * one : one;
  }
  const torch::Tensor forward = direction_delta(pair.forward(), 0);
  const torch::Tensor backward = direction_delta(pair.backward(), 1);
  return combination == DirectionCombination::kSum ? forward + backward : torch::maximum(forward, backward);
}

}  // namespace noiselearn
