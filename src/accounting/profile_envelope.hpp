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
// al.'s connect-the-dots applied to the envelope). Its masses follow from the curve by
//   delta_j = delta_{j+1} + (1 - e^{-step}) G_j,   m_{j+1} = G_j - e^{-step} G_{j+1}.
// Where one pair attains the envelope at j, j+1, j+2 the mass is that pair's own mass (exact); at the few grid
// points where the maximising pair changes, the mass comes from a difference of deltas, and a bound on its
// rounding error is added to numerical_error.
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
EnvelopeResult profile_envelope(const std::vector<PrivacyLossDistribution>& upper_bounds, const AccountantOptions& options);

}  // namespace noiselearn
