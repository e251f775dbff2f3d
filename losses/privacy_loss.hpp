#pragma once
// Differentiable privacy losses (DESIGN.md): maps a dominating pair to a scalar surrogate of delta(epsilon)
// after n compositions, with gradients. Training only: none of them is trusted for the final guarantee,
// which always comes from the certified accountant.
#include <torch/torch.h>

#include <string>
#include <vector>

#include "losses/differentiable_pair.hpp"

namespace noiselearn {

// How the two directions A||B and B||A are combined: their sum (Sommer et al.) or their maximum.
enum class DirectionCombination { kSum, kMax };
DirectionCombination parse_direction_combination(const std::string& text);
std::string to_string(DirectionCombination combination);

class PrivacyLoss : public torch::nn::Module {
 public:
  ~PrivacyLoss() override = default;
  virtual std::string loss_name() const = 0;
  // The surrogate of delta for one direction; `direction` is 0 for A||B and 1 for B||A (losses with
  // per-direction parameters, like the moments accountant's lambda, use it).
  virtual torch::Tensor direction_delta(const LogPair& pair, int direction) = 0;

  // Both directions, combined.
  torch::Tensor delta(const DifferentiablePair& pair, DirectionCombination combination);
};

}  // namespace noiselearn
