#pragma once
// The soft privacy-loss distribution: a differentiable PLD on a uniform loss grid (masses and an infinity mass as
// tensors), its tail truncation, its n-fold composition and delta(eps). The mathematics of the soft PLD loss
// (soft_pld_loss.hpp) and of the family objective (soft_pld_family_objective.hpp) rests on it; the fused autograd
// functions (soft_pld_fused.hpp) compute the same steps by hand.
#include <torch/torch.h>

#include <cstdint>

namespace noiselearn {

// A differentiable PLD on the loss grid {(first + i) step}: masses (1-D float64 tensor) and the infinity mass
// (scalar tensor). Shared by the soft PLD loss and the family objective (losses/soft_pld_family_objective.hpp).
struct SoftPld {
  torch::Tensor masses;
  int64_t first = 0;
  torch::Tensor infinity_mass;
};

// Smallest size >= n with only factors 2, 3, 5 (a fast FFT size).
int64_t smooth_fft_size(int64_t n);

// Cuts tails of at most tail_mass per side (the cut points carry no gradient); the top tail joins the infinity
// mass, the bottom tail joins the lowest kept point.
void truncate_soft_pld(SoftPld& pld, double tail_mass);

// The n-fold composition (square-and-multiply of FFT convolutions, truncated after each step).
SoftPld compose_soft_pld(const SoftPld& single, int64_t compositions, double tail_mass);

// delta(eps) = omega + sum_{l > eps} (1 - e^{eps - l}) pmf(l), differentiable in the masses (eps fixed).
torch::Tensor soft_pld_delta(const SoftPld& pld, double loss_step, double epsilon);

}  // namespace noiselearn
