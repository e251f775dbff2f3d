#pragma once
// Dominating pairs as differentiable tensors (the training-side twin of core/dominating_pair.hpp).
//
// Pairs are built from log p (so that tiny probabilities keep their relative precision) on the extended
// support: A = p padded with k cells after, B = p shifted by k cells (padded before). -inf marks a zero
// probability. Losses consume one direction at a time: first || second.
#include <torch/torch.h>

#include <cstdint>

namespace noiselearn {

// One direction of a pair: the privacy loss of an outcome is log_first - log_second, distributed by first.
struct LogPair {
  torch::Tensor log_first;
  torch::Tensor log_second;
  // Optional: e^{log_first} (detached), when the caller has it; a loss that needs the masses uses it instead of
  // exponentiating (undefined: the loss computes them).
  torch::Tensor first{};
};

struct DifferentiablePair {
  torch::Tensor log_a;     // output distribution on D0
  torch::Tensor log_b;     // on D1
  torch::Tensor a{}, b{};  // optional: e^{log_a}, e^{log_b} (detached), see LogPair::first
  LogPair forward() const { return {log_a, log_b, a}; }   // A || B
  LogPair backward() const { return {log_b, log_a, b}; }  // B || A
};

// A = p, B = p shifted up by k cells (Sommer et al., section 3.2: I_0 = p, I_1 = p shifted by the sensitivity).
// On a 1-D contiguous float64 CPU tensor one autograd function (one pass forward, one backward); elsewhere, and as
// its reference in the tests, two concatenations with -inf (additive_pair_by_concatenation): the same bits.
// p (optional): e^{log p} (detached), padded into the pair's masses a and b.
DifferentiablePair additive_pair(const torch::Tensor& log_p, int64_t shift_cells, const torch::Tensor& p = {});
DifferentiablePair additive_pair_by_concatenation(const torch::Tensor& log_p, int64_t shift_cells);

// A = p, B = (1 - q) p + q shift_k(p) (Sommer et al., eq. 5), computed with logaddexp.
DifferentiablePair subsampled_pair(const torch::Tensor& log_p, int64_t shift_cells, double sampling_rate);

// Masks of a direction (no gradient): outcomes that occur under `first` with a finite loss, and the
// distinguishing events (first > 0, second = 0).
torch::Tensor finite_loss_mask(const LogPair& pair);
torch::Tensor infinite_loss_mask(const LogPair& pair);

// Whether the fused training functions apply: a 1-D contiguous float64 tensor on the CPU; for a direction, both
// tensors so and of equal length. Elsewhere (another device or dtype) the tensor-operation versions run.
bool is_cpu_float64_vector(const torch::Tensor& t);
bool is_cpu_float64(const LogPair& pair);

// The privacy losses log_first - log_second where finite_loss_mask, 0 elsewhere, with gradients that are
// finite everywhere (no -inf - -inf in the graph).
torch::Tensor safe_privacy_losses(const LogPair& pair);

// The outcomes of a pair split by their privacy loss: finite (both sides positive) or infinite (only the first side
// positive, a distinguishing event), with the log-probabilities zeroed outside the finite ones so that no -inf enters a
// graph. Shared by the Renyi moments and the Renyi losses.
struct MaskedLogPair {
  torch::Tensor both_finite;    // the outcome has a finite privacy loss
  torch::Tensor infinite_loss;  // first > 0, second = 0
  torch::Tensor log_first;      // 0 where !both_finite (so no -inf enters the graph)
  torch::Tensor log_second;
};

MaskedLogPair masked_log_pair(const LogPair& pair);

}  // namespace noiselearn
