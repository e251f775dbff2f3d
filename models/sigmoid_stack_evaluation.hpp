#pragma once
// Evaluations of the sigmoid-stack profile of Sommer et al., eq. (4), in log space:
//
//   log f(x) = log[ A² + Σ_{j=1..K} B_j² σ(C (x − F_j)) ]   at the points x_i of the uniform grid `half`
//
// (the model passes the non-positive half of its grid). A (scalar), B [K] and F [K] are float64 tensors on
// one device; the result log f [half.size] is on that device and differentiable in A, B and F by autograd
// (tensor operations only).
//
// A weight A² or B_j² that is 0 (or underflows) stands for an absent term: it never produces NaN, and its
// gradient is 0, which is the true derivative of B_j² σ(·) at B_j = 0. A profile with every weight 0 is
// f ≡ 0 and has no distribution; it is the caller's to avoid (the model's initialisation has A = 10).
#include <torch/torch.h>

#include "core/grid.hpp"

namespace noiselearn {

// The reference: the (H × K) matrix of log B_j² + log σ(C (x_i − F_j)), reduced by a log-sum-exp with log A².
// O(H K) time and memory (at H = 30,001, K = 10,000 one H × K matrix of doubles is 2.4 GB).
torch::Tensor sigmoid_stack_log_profile_direct(const Grid& half, const torch::Tensor& A, const torch::Tensor& B,
                                               const torch::Tensor& F, double slope);

// The same values in O(H W + K log K) time and O(H W + K) memory (W the largest number of centres within
// kSigmoidSaturation / C of one grid point), exact to float64 rounding: every sigmoid is either evaluated or
// replaced by an approximation with relative error below e^{-kSigmoidSaturation} ≈ 3e-20.
// Centres are sorted; for each x_i they split into three runs (located arithmetically on the uniform grid):
//   saturated, C (x_i − F_j) > T:  σ = 1, so the run contributes a prefix sum of B_j²;
//   window,   |C (x_i − F_j)| ≤ T: evaluated exactly (a padded [H, W] gather);
//   tail,     C (x_i − F_j) < −T:  σ(z) = e^z, so the run contributes e^{C (x_i − F_k) + G_k}, k the run's
//             first centre and G_k = log Σ_{j ≥ k} B_j² e^{−C (F_j − F_k)}, a suffix sum kept in log space
//             because it is all that remains of f left of every centre when A² is tiny (e^{C x} underflows
//             long before).
// The three parts are combined in log space.
torch::Tensor sigmoid_stack_log_profile_fast(const Grid& half, const torch::Tensor& A, const torch::Tensor& B,
                                             const torch::Tensor& F, double slope);

// T: sigmoids with |C (x − F)| > T are replaced by 1 or e^{C (x − F)} (relative error e^{-T} < 3e-20, far
// below the float64 epsilon 2.2e-16, so the fast evaluation is exact to rounding).
inline constexpr double kSigmoidSaturation = 45.0;

}  // namespace noiselearn
