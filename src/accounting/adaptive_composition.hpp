#pragma once
// The exact worst case over adaptive neighbour sequences: the adversary's dynamic programme on the accumulated
// privacy loss.
//
// Setting. Release i offers a set of candidate pairs (A_d, B_d) (for additive noise: p against p shifted by d
// cells, d in {-k..k} \ {0}); the adversary picks d_i after seeing the outputs y_1..y_{i-1}. For a fixed strategy
// the joint likelihood ratio is the product of the per-release ratios, so the composed privacy loss is the sum
// l = L_{d_1}(y_1) + ... + L_{d_n}(y_n) with L_d = ln(A_d / B_d), and delta(eps) is E_A[(1 - e^{eps - l})_+] (a
// distinguishing event, B_d = 0, counts 1). What remains to be gained after i releases depends only on the loss
// accumulated so far, so the optimal adaptive strategy solves
//   V_n(l) = (1 - e^{-l})_+,   V_{i-1}(l) = max_d  E_{y ~ A_d}[ V_i(l + L_d(y)) ]   (infinite loss: value 1),
// and, because shifting eps shifts l (V^{eps}_i(l) = V^{0}_i(l - eps)), one run gives the whole curve:
//   delta(eps) = V_0(-eps).
// A randomised strategy is a mixture of deterministic ones and gains nothing (the divergence is convex).
// A difference of 0 is never better (Jensen), so only the non-zero differences are candidates.
//
// Why a discretised run is a bound. By induction u -> V_i(l - ln u) is convex for every l (V_n is, and a step
// takes sums and maxima of such functions), so E_{A_d}[V_i(l + L_d)] = E_{A_d}[g(B_d / A_d)] with g convex is
// an f-divergence of the pair: it can only grow when the pair is replaced by a more informative one of which it
// is a post-processing (the connect-the-dots PLD, loss_discretisation.hpp) and only shrink for a less
// informative one (merge-to-grid). Every step is monotone in the function it is applied to, so running the
// recursion on every candidate's pessimistic PLD gives an upper bound of the exact value at every l, and on the
// optimistic PLDs (of pairs that can all occur) a lower bound. All PLDs live on one loss grid {j h}, so l stays on
// it and each step is exact for the discretised pairs.
//
// The window of l. V is non-decreasing in l, tends to the probability of a distinguishing event as l -> -inf and
// to 1 (at most) as l -> +inf. The programme keeps l in [lo, H] (H h = top_loss):
//   - below lo the upper run uses V(lo) and the lower run the asymptote (a lower bound of V everywhere); lo is
//     raised each release to where the upper value is within window_tolerance / n plus 1e-10 relative of the
//     asymptote (so the two replacements together loosen the upper bound by at most window_tolerance plus about
//     n 1e-10 of the distinguishing-event mass in all; the relative part absorbs the rounding of the sums, which
//     otherwise keeps thousands of points at the asymptote in the window);
//   - H starts at 2 grid steps and rises each release by the largest drop of the loss one release can cause (the most
//     negative atom), up to top_loss. Then no path from above H ends below 0, so V is exactly affine in u = e^{-l}
//     there (for every candidate, sum_j m_j (1 - c e^{-l - o_j}) is such a line through (0, 1), and their maximum
//     is the one of least slope), and both continuations below are exact; once H is capped they are bounds:
//   - above H: u -> V(-ln u) is convex with V <= 1 at u = 0, so the upper run uses the chord from (0, 1) to
//     (u_H, V(H)), i.e. 1 - (1 - V(H)) e^{-(l - H h)}, and the lower run the extension of the chord through
//     (u_{H-1}, u_H) below u_H, its slope bounded below by the lower value at H minus the upper value at H - 1
//     (and never less than (1 - e^{-l})_+ or the lower value at H). Both are exact when V is affine in e^{-l}
//     there, which it is up to the probability that the remaining releases bring the loss back below 0.
//
// Floating point. Every value is a sum of non-negative products, computed directly: relative error at most
// (m + 2) u for m atoms. The upper run rounds each release's values up by twice that, the lower run down, and
// each PLD's own allowances ((x + numerical_error) / (1 - relative_error) up, (x - ...) / (1 + ...) down) are
// applied to its expectation; the programme is monotone and positively homogeneous, so the factors compound to
// a relative allowance of at most 2 n (m + 2) u, which is inside the printed bounds.
//
// Between grid points. delta is convex in e^eps, so the chord in e^eps between two upper values is an upper
// bound; for the lower bound delta(eps) >= delta(eps_1) + (u_1 - u) (delta(eps_1) - delta(eps_2)) / (u_2 - u_1)
// (u = e^eps, eps_1 < eps_2 the grid points above eps), with delta(eps_1) - delta(eps_2) bounded below by the lower
// value at eps_1 minus the upper value at eps_2.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "accounting/accountant_options.hpp"
#include "accounting/privacy_loss_distribution.hpp"

namespace noiselearn {

// One stretch of releases that offer the same candidate pairs.
struct AdaptiveReleases {
  // Pessimistic (BoundKind::kUpper) single-release PLDs of candidate pairs: every pair a release may use must be
  // dominated by one of them (pairs dominated by others may be left out).
  std::vector<PrivacyLossDistribution> upper;
  // Optimistic (BoundKind::kLower) single-release PLDs of pairs that a release may use.
  std::vector<PrivacyLossDistribution> lower;
  int64_t count = 1;
};

struct AdaptiveOptions {
  // Loss (nats) above which the value function is continued by its convexity bound (see above). Both continuations
  // are sound at any height; above H they differ by at most e^{-l} (1 - e^{H h} (1 - V(H))) <= e^{-H h}, weighted
  // by the chance that the loss climbs above H at all: at 12 nats, 6e-6 times that chance.
  double top_loss = 12.0;
  // Largest total error the bottom of the window may add to delta, over all releases, besides the relative 1e-10 of
  // the asymptote per release described above.
  double window_tolerance = 1e-20;
  // Skip the lower run (its values are then 0): for blocks (adaptive_blocks.hpp), which use the upper run only.
  bool upper_only = false;
  // When in [1, n), also return (AdaptiveCurves::snapshot) the curves of the last `snapshot_after` releases alone: the
  // programme runs backwards from the last release, so after that many steps its values are those releases'
  // whole adaptive profile (for the remainder block of adaptive_blocks.hpp, at no extra cost). Its window is the
  // run's, at least as high as a separate run's, so its bounds are at least as tight.
  int64_t snapshot_after = 0;
};

// The exact adaptive programme run in blocks (adaptive_blocks.hpp): its upper bound is the composed dominating PLD of
// the blocks.
struct AdaptiveBlocks {
  std::shared_ptr<const PrivacyLossDistribution> composed;  // set when the curve was made in blocks
  int64_t size = 0, count = 0, remainder = 0;               // releases per block, blocks, releases in the last
  // The blocks' dominating PLDs (a block of `size` releases, and the remainder's when remainder > 0), kept so that the
  // composition can be redone with an exponential tilt for a target epsilon (add_tilted_blocks in adaptive_blocks.hpp);
  // and those tilted compositions, each an upper bound of its own (the queries take the least).
  std::shared_ptr<const PrivacyLossDistribution> hull, remainder_hull;
  std::vector<std::shared_ptr<const PrivacyLossDistribution>> tilted;
  std::vector<double> tilted_for;  // the target epsilon of each tilted composition
};

// How large the programme's largest step was.
struct AdaptiveProgrammeExtent {
  size_t candidates_upper = 0, candidates_lower = 0;  // largest number of candidate pairs in one release
  int64_t largest_window = 0;                         // grid points of l in the largest window
};

// One number for each side of a bracket.
struct UpperAndLower {
  double upper = 0.0, lower = 0.0;
};

// delta(eps) after the releases, as upper and lower values at the grid epsilons eps_j = (first_index + j) h.
struct AdaptiveCurves {
  double loss_step = 0.0;
  int64_t first_index = 0;
  std::vector<double> upper, lower;
  // Above the last grid epsilon: upper (the window's floor) and lower (the distinguishing-event asymptote).
  UpperAndLower beyond{1.0, 0.0};
  int64_t compositions = 0;
  AdaptiveProgrammeExtent extent;
  double relative_allowance = 0.0;  // compounded floating-point factor (already applied)
  // Total loss shift of the candidates' snapped losses (PrivacyLossDistribution::loss_shift), applied by the
  // queries: the grid values are delta at eps_j + loss_shift.upper (upper), eps_j - loss_shift.lower (lower).
  UpperAndLower loss_shift;
  // Set when the curve was made in blocks: the upper bound is then blocks.composed (upper, lower and the grid above
  // are empty: a block bound has no lower side).
  AdaptiveBlocks blocks;
  // When set, what describe() says (a heterogeneous composition's parts, pair_accountant.cpp).
  std::string description;
  // The curves of the last AdaptiveOptions::snapshot_after releases, when asked for.
  std::shared_ptr<const AdaptiveCurves> snapshot;

  double delta_upper(double epsilon) const;
  double delta_lower(double epsilon) const;
  // Smallest eps with delta_upper(eps) <= delta (+inf if none); largest eps with delta_lower(eps) > delta
  // (-inf if none: then every eps is consistent). Callers clamp to >= 0.
  double epsilon_upper(double delta) const;
  double epsilon_lower(double delta) const;
  // One line: how the bound was computed.
  std::string describe() const;

 private:
  double grid_delta_upper(double grid_epsilon) const;
};

// The releases in the order given (the first element is released first). Every PLD is brought to the coarsest
// loss step among them (steps must differ by powers of two, as discretise() makes them).
AdaptiveCurves adaptive_composition(const std::vector<AdaptiveReleases>& releases, const AccountantOptions& options,
                                    const AdaptiveOptions& adaptive = {});

// The largest standard deviation and the largest |mean| of the finite loss (nats, under A) over the upper candidates
// of a release: what the cost estimate and the block window need to know of how far the loss wanders.
struct CandidateLossSpread {
  double deviation = 0.0, drift = 0.0;
};
CandidateLossSpread candidate_loss_spread(const AdaptiveReleases& releases);

// Cost estimate of adaptive_composition (atom-times-window products), for choosing between methods.
double adaptive_composition_cost(const std::vector<AdaptiveReleases>& releases, const AdaptiveOptions& adaptive = {});

}  // namespace noiselearn
