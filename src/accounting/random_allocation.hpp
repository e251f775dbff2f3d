#pragma once
// Random allocation ("balls in bins"): each epoch has k steps, and each record takes part in exactly one of them,
// chosen uniformly and independently of the other records (every record used once per epoch, as with shuffling, but
// binomial batch sizes; a shuffled permutation with fixed-size batches is not covered). One epoch as single-release
// bounds, composed over the epochs by compose_bounds; add or remove one record.
//
// With (P, Q) the mechanism's worst pair of one step (mechanism_pair.hpp), the epoch's outputs are k steps. Without
// the record they are Q^k; with it, the record's step i is uniform, so A = (1/k) sum_i P_i, P_i having P at step i
// and Q elsewhere. The likelihood ratio of the epoch is
//   A/Q^k (x) = (Y_1 + ... + Y_k) / k,     Y_j = (P/Q)(x_j),
// and under Q^k the Y_j are independent with the law of Y under Q; under A, E_A[f] = E_Q[f S / k]. So both
// directions, remove A||Q (loss ln(S/k) under A) and add Q||A (loss -ln(S/k) under Q), follow from the law of the
// sum S under Q: a k-fold convolution of Y's law, one FFT power on a lattice of Y (allocation_lattice.hpp):
//   upper bound: Y spread onto the lattice keeping its mean (a more informative pair, so its epoch is too: the
//     epoch is a function of the steps, and a post-processing of each step is one of the epoch);
//   lower bound: Y reduced to cells whose conditional means sit at lattice points (a post-processing), the label
//     sum S' at most (remove) or at least (add) the reduced pair's ratio sum, which lowers each direction's loss.
// The S-lattice's masses, with their FFT allowances and the Chernoff windows of fft_power.hpp (in S, mass moved up
// only raises the loss of remove and moved to infinity raises it of add: S is negated for add), become the
// losses ln(S/k) and -ln(S/k), discretised on the loss grid as any release's (connect-the-dots up, merge-to-grid
// down).
//
// A difference smaller than the sensitivity in the record's step, chosen adaptively from the earlier steps' outputs,
// is a post-processing applied step by step (the Gaussian: x -> N(a x, sigma^2 (1 - a^2)), a from the outputs so
// far), so the mechanism's worst pair covers adaptive steps. Every mechanism's law works (atoms, cells, a density).
#include <cstdint>
#include <memory>

#include "accounting/accountant_options.hpp"
#include "accounting/mechanism_pair.hpp"
#include "accounting/pair_bounds.hpp"

namespace noiselearn {

// One epoch of k = steps_per_epoch steps (k >= 1; k = 1 is the mechanism without sampling) as single-release bounds.
// `rediscretise` of the result makes it again with other options, reusing the epoch's ratio sums where the tail mass
// and max_points are the same.
PairBounds random_allocation_bounds(std::shared_ptr<const MechanismPair> mechanism, int64_t steps_per_epoch,
                                    const AccountantOptions& options);

}  // namespace noiselearn
