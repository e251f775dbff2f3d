#pragma once
// The single-release PrivacyBuckets of one direction (PrivacyBucketsLoss::single_release_buckets, Sommer et al.,
// section 3.4.2) as one autograd function on contiguous float64 CPU arrays, with a hand-written backward: one pass
// over the outcomes forward (mass e^{log first}, index ceil(L / ln f), its bucket, the two smallerThan terms), one
// backward (the true gradient of the masses, the surrogate gradient of the indices: smallerThan's derivative and
// the Lorentzian correlation of the bucket gradients, computed once by equal_surrogate_correlation over the range
// of indices).
//
// The same values and gradients as the tensor-operation version, which stays the reference in tests and in
// bench_losses, to rounding: the sums over the outcomes run in index order instead of torch's reduction order,
// and smallerThan at the whole-number offsets m = x - y is read from a table of 1 / (1 + e^{5 (m + 0.5)}) (the
// sigmoid is 1 to double precision for m <= -9 and 0 for m >= 149).
#include <optional>

#include "losses/differentiable_pair.hpp"
#include "losses/privacy_buckets_composition.hpp"

namespace noiselearn {

// The buckets of first||second in 2h buckets of width log_factor. `first` is e^{log first} (no gradient, computed
// once per direction by a vectorised exp and shared with finite_loss_moments). Requires is_cpu_float64(pair)
// (differentiable_pair.hpp).
PrivacyBuckets fused_single_release_buckets(const LogPair& pair, const torch::Tensor& first, double log_factor,
                                            int64_t half_buckets);

// Mass, mean and variance of the finite privacy losses under `first` (no gradient). Requires is_cpu_float64(pair).
struct FiniteLossMoments {
  double mass = 0.0, mean = 0.0, variance = 0.0;
};
FiniteLossMoments finite_loss_moments(const LogPair& pair, const torch::Tensor& first);

}  // namespace noiselearn
