#pragma once
// Differentiable privacy losses (src/README.md, "The layers"): maps a dominating pair to a scalar surrogate of
// delta(epsilon) after n compositions, with gradients. Training only: none of them is trusted for the final guarantee,
// which always comes from the certified accountant.
#include <torch/torch.h>

#include <string>
#include <vector>

#include "losses/differentiable_pair.hpp"

namespace noiselearn {

// How the two directions A||B and B||A are combined: their sum (Sommer et al.) or their maximum.
enum class DirectionCombination { kSum, kMax };

// True when pair.log_b is pair.log_a reversed, bit for bit.
bool is_mirror_symmetric(const DifferentiablePair& pair);
DirectionCombination parse_direction_combination(const std::string& text);
std::string to_string(DirectionCombination combination);

class PrivacyLoss : public torch::nn::Module {
 public:
  ~PrivacyLoss() override = default;
  virtual std::string loss_name() const = 0;
  // The surrogate of delta for one direction; `direction` is 0 for A||B and 1 for B||A (losses with
  // per-direction parameters, like the moments accountant's lambda, use it).
  virtual torch::Tensor direction_delta(const LogPair& pair, int direction) = 0;

  // Both directions, combined. When B is A reversed bit for bit (a symmetric table's additive pair), B||A is A||B
  // with its outcomes reversed, and one direction is evaluated for both (unless the loss has per-direction
  // parameters).
  torch::Tensor delta(const DifferentiablePair& pair, DirectionCombination combination);

  // True for losses with parameters per direction (the moments accountant's lambda): they always evaluate both.
  virtual bool has_direction_parameters() const { return false; }

  // false: evaluate both directions even for a symmetric table (the reference, for benchmarks and tests).
  bool symmetric_shortcut = true;
};

}  // namespace noiselearn
