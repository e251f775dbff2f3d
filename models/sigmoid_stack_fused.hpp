#pragma once
// The sigmoid-stack model of Sommer et al., eq. (4), as one fused autograd function on contiguous float64 CPU
// arrays: log f on the non-positive half (the three runs of sigmoid_stack_log_profile_fast), its running
// maximum, the mirror to the whole grid and the normalisation log p = log f - logsumexp(log f), forward and a
// hand-derived backward, in O(E + K + window pairs) with no autograd graph.
//
// The same values as SigmoidStack::forward_fast (the tensor-operation version, kept as the reference in tests and
// in bench_models) to float64 rounding; the differences are summation orders:
//   - the suffix sums G_k = log Σ_{j >= k} w_j e^{-C (F_j - F_k)} are a sequential recursion from the last centre
//     (G_k = logaddexp(log w_k, G_{k+1} - C (F_{k+1} - F_k))) where the reference doubles its stride;
//   - the backward sums of the gradients over the grid points run in a different order.
//
// Backward (restated from the forward; x_i the half grid, c_j the sorted centres, w_j = B_j², f_i = lin_i + tail_i,
// lin_i = A² + Σ_{saturated j} w_j + Σ_{window j} w_j σ(C (x_i - c_j)), tail_i = e^{C (x_i - c_k) + G_k}, k = hi_i):
//   g_i = dL/d log f_i (through the normalisation, the mirror and the running maximum's argmax);
//   γ_i = g_i / f_i = dL/d lin_i, β_i = g_i tail_i / f_i = dL/d G_{hi_i};
//   dL/dA = 2 A Σ_i γ_i;
//   dL/dw_j = Σ_{i saturated for j} γ_i + Σ_{i in j's window} γ_i σ_ij + T_j,
//   dL/dc_j = -C w_j Σ_{i in j's window} γ_i σ_ij² e^{C (c_j - x_i)} - C w_j T_j,
//   T_j = Σ_{k <= j} β'_k e^{-C (c_j - c_k) - G_k}, β'_k = Σ_{i: hi_i = k} β_i (a forward recursion in j);
//   the anchors c_k of G_k are constants, as in the reference.
#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "core/grid.hpp"

namespace noiselearn {

// log p over `grid` (symmetric, E points) for the parameters A (scalar), B [K], F [K] and the slope C. Returns an
// undefined tensor when the fused path does not apply (a tensor not on the CPU or not float64, or a suffix sum G_k
// below e^-600 where its reciprocal could overflow in the backward recursion); the caller then uses the
// tensor-operation evaluation.
// order_hint (optional): the permutation sorting F found by the previous call, updated; sorting from it is O(K)
// while the centres keep their order.
// probabilities (optional): receives p (detached) from the normalisation, p_i = e^{running_i - top} / total on the
// half, mirrored: within a few roundings of e^{log p_i}, without an exponential.
torch::Tensor sigmoid_stack_log_probabilities_fused(const Grid& grid, const torch::Tensor& A, const torch::Tensor& B,
                                                    const torch::Tensor& F, double slope,
                                                    std::vector<int64_t>* order_hint = nullptr,
                                                    torch::Tensor* probabilities = nullptr);

}  // namespace noiselearn
