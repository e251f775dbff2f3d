#pragma once
// The surrogate gradients of the PrivacyBuckets training losses (Sommer et al., section 3.4.2, "Implementation"):
// the forward pass uses the real discrete functions, the backward pass replaces their derivatives by
//   d/dx ceil(x)      := 1,
//   d/dx equal(x, y)  := 1 / (1 + (x - y)^2 / 0.01)   (a Lorentzian of half-width 0.1),
// and smallerThan(x, y) := sigmoid(-5 (x - y + 0.5)) replaces the comparison in the forward pass too, with its
// true derivative. For integers x, y it is about 0.92 when x = y - 1 and 0.08 when x = y, i.e. a soft x < y.
// These are heuristics, not derivatives of delta (experiments/errata.md, E-Sommer-4).
#include <torch/torch.h>

#include <cstdint>

namespace noiselearn {

// ceil(x) forward, identity backward.
torch::Tensor ceil_straight_through(const torch::Tensor& x);

// sigmoid(-5 (x - y + 0.5)), elementwise, with the true derivative.
torch::Tensor smaller_than(const torch::Tensor& x, double y);
torch::Tensor smaller_than(double x, const torch::Tensor& y);

// The masses of the buckets j = -h+1 .. h (shape [2h]): bucket_j = sum_i masses_i * equal(indices_i, j).
// `indices` holds whole numbers (from ceil_straight_through); indices outside [-h+1, h] add to no bucket.
// Backward: the masses get their true gradient (the bucket of their index); index i gets
//   masses_i * sum_j grad_j / (1 + 100 (indices_i - j)^2),
// the Lorentzian correlation of the bucket gradients, computed once per backward pass for every index: by FFT
// for indices within 2h of the buckets, by a converging multipole series beyond (the Lorentzian's tails are
// long, and under the paper's literal factor every index lies far outside the buckets). Nothing is truncated.
torch::Tensor equal_bucket_masses(const torch::Tensor& masses, const torch::Tensor& indices, int64_t half_buckets);

// That correlation, sum_j grad_j / (1 + 100 (x_i - j)^2) over the buckets j = -h+1 .. h, for whole numbers x_i.
torch::Tensor equal_surrogate_correlation(const torch::Tensor& bucket_gradients, const torch::Tensor& x,
                                          int64_t half_buckets);

// smallerThan's slope (Sommer et al., 3.4.2).
inline constexpr double kSmallerThanSlope = 5.0;

}  // namespace noiselearn
