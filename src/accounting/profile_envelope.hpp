#pragma once
// One pessimistic PLD that dominates several pairs at once.
//
// When a guarantee must hold for every query difference 1..k cells (and either sign) — tables that are not
// symmetric-monotone, where Thm 15 of Sommer et al. does not apply — each release may have a different
// difference. A pair dominates all of them if its privacy profile delta(eps) is >= each of theirs for every
// real eps (hockey-stick curves for all eps characterise the trade-off function, so this is Blackwell
// dominance, which survives composition). The upper envelope max_p delta_p(eps) is convex in e^eps (a maximum
// of convex functions) with value 1 at eps = -inf; connecting its values at the loss-grid points linearly in
// e^eps (and to 1 at e^eps = 0) lies above it and is the privacy profile of a PLD on the grid (Doroshenko et
// al.'s connect-the-dots applied to the envelope). Its masses follow from the
// curve's second differences,
//   G_j = (delta_j - delta_{j+1}) / (1 - e^{-step}),   m_{j+1} = G_j - e^{-step} G_{j+1},
// where delta_j is the envelope at l_j, including the point below the lowest loss; the total mass is the largest
// input total (the curve's value at eps = -inf), added at the lowest point if the chord falls short of it.
//
// Floating point: second differences divide by (1 - e^{-step})^2, so doubles would lose u delta / step^2 at
// each point where the maximising input changes (1e-7 in all on a nearly symmetric table with 1e5 changes).
// The curves are therefore computed in double-double (double_double.hpp); each input's curve is first raised
// by its own floating-point allowance ((delta + numerical_error) / (1 - relative_error)) and by a bound on the
// double-double rounding, and the resulting masses are rounded up with a bound on their own rounding. The
// envelope is then entrywise at or above the exact envelope of the exact inputs: a measure (total mass a hair
// above 1) that dominates every input, with no floating-point allowance of its own. That domination survives
// composition for any non-negative measures: delta of X (x) Z at eps is omega_Z T_X + sum_l Z(l) delta_X(eps - l),
// non-decreasing in the curve of X and its total T_X.
#include <vector>

#include "accounting/accountant_options.hpp"
#include "accounting/privacy_loss_distribution.hpp"

namespace noiselearn {

struct EnvelopeResult {
  PrivacyLossDistribution envelope;
  // For each input, the number of grid points where it attains the envelope (which pairs matter).
  std::vector<int64_t> points_attained;
};

// All inputs must be single-release upper bounds (BoundKind::kUpper); they are brought to a common step.
EnvelopeResult profile_envelope(const std::vector<PrivacyLossDistribution>& upper_bounds,
                                const AccountantOptions& options);

// Blackwell dominance between single inputs (the stored measures, masses as they are): input x is dominated by
// input y when x's privacy profile lies at or below y's at every grid point, and so do its total mass and its
// infinity mass. Both profiles are linear in e^eps between grid points (and below the lowest loss), so this is
// dominance at every real eps; every functional E_A[g(B/A)] with g convex, non-increasing and non-negative (every
// step of the adaptive programme, adaptive_composition.hpp) is then at most y's, and x can be left out of a maximum
// over candidates. The profiles are compared in double-double with their rounding bounds; where rounding leaves
// x a hair above y (mathematically equal values, such as the totals of two measures of one table), y is scaled by
// 1 + theta in place (theta <= 1e-12, a relative change like any floating-point allowance) so that it covers x.
// Returns the inputs to keep: `order` lists the preferred dominators; an input
// is dropped when a kept input of `order` dominates it. Inputs must share one loss step and carry no floating-point
// allowance (single-release PLDs).
std::vector<size_t> undominated_inputs(std::vector<PrivacyLossDistribution>& upper_bounds,
                                       const std::vector<size_t>& order);

}  // namespace noiselearn
