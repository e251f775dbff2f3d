#pragma once
// The exact adaptive programme in blocks, for many releases (issue 19's route (a), "block envelope").
//
// The programme of adaptive_composition.hpp costs one correlation per release over a window that grows with the
// releases; at T = 250,000 that is out of reach. Instead:
//   1. run the programme (upper run only) for a block of m releases: its values V_0(-eps) bound from above, at every
//      real eps, the privacy profile of the block against the adaptive adversary, sup over its strategies of
//      H_{e^eps}(A || B) for the block's output distributions;
//   2. turn that profile into one pair of distributions that dominates it: delta(eps) is convex and non-increasing
//      in u = e^eps with delta = 1 at u = 0, so the greatest convex minorant of the points (0, 1), (u_j, D_j) (the
//      grid values, each >= the true profile) lies above the true profile (a convex function below every point
//      lies below their greatest convex minorant), and a convex piecewise-linear curve through (0, 1) with slopes
//      >= -1 is the hockey-stick curve of the PLD with an atom at each vertex's loss l_k = ln u_k of mass
//      w_k = u_k (s_{k+1} - s_k) (s: the slopes on either side; 0 after the last vertex, whose value is the
//      infinity mass) (Zhu, Dong and Wang, "Optimal accounting of differential privacy via characteristic
//      function", AISTATS 2022, Prop. 3: every privacy profile is that of a pair);
//   3. a block, given everything released before it, is an adaptive m-release mechanism, so it is dominated by that
//      pair; adaptive composition of mechanisms each dominated by a pair is dominated by the product pair (ibid.,
//      Thm. 10), whose PLD is the convolution (composition.hpp). n = q m + r releases: q blocks of m and one of r.
// The bound lies between the exact adaptive value (m = n) and the profile envelope (m = 1) and tightens with m.
// Floating point: the hull's masses are rounded; the curve they define is evaluated at every vertex and at u = 0
// in compensated long double, and the largest shortfall (plus a margin for that evaluation) becomes the PLD's
// numerical_error, which every query adds.
#include <cstdint>
#include <vector>

#include "accounting/accountant_options.hpp"
#include "accounting/adaptive_composition.hpp"
#include "accounting/privacy_loss_distribution.hpp"

namespace noiselearn {

// A pessimistic PLD whose delta(eps) is >= the curve's upper values at every real eps (see above). The curve must
// be a plain programme result (not in blocks).
PrivacyLossDistribution profile_dominating_pld(const AdaptiveCurves& block);

// The upper bound of `releases` (one stretch; its count is n) by blocks of block_size releases (1 <= block_size <= n).
// Returns an AdaptiveCurves in block form (blocks.composed set, no lower values).
AdaptiveCurves adaptive_block_composition(const AdaptiveReleases& releases, int64_t block_size,
                                          const AccountantOptions& options, const AdaptiveOptions& adaptive = {});

// Redoes the composition of a block-form curve (adaptive_block_composition) with every block's dominating PLD tilted
// by the Chernoff-optimal lambda for delta at `epsilon` (exponential_tilt.hpp; the remainder's PLD gets the same
// lambda, as a composition needs one tilt for its factors). In exact arithmetic the result is the same PLD; the
// tilt only moves where the FFT's rounding error lands, so that at a large epsilon (small delta) the allowance is
// relative to the Chernoff bound instead of absolute. Appends it to curve.blocks.tilted; returns false (nothing
// added) when the curve is not in block form, epsilon is not finite, or epsilon is at or below the mean loss.
bool add_tilted_blocks(AdaptiveCurves& curve, double epsilon, const AccountantOptions& options);

// The largest block size in [1, n] whose programme's estimated cost (adaptive_composition_cost) is within the budget;
// 0 if even one release exceeds it.
int64_t largest_block_within(const AdaptiveReleases& releases, double budget, const AdaptiveOptions& adaptive = {});

}  // namespace noiselearn
