#pragma once
// From a dominating pair to a discretised privacy-loss distribution that is a rigorous bound.
//
// Why the constructions are bounds (the argument the tests check numerically):
//
// * delta(eps) of a pair is the hockey-stick divergence H_{e^eps}(A||B) = E_A[(1 - e^eps U)_+], U = B/A.
//   If a pair P' is a post-processing of P (P' = K(P) for a Markov kernel K), then H(P') <= H(P) for every
//   eps, and this survives composition: K^{(x)n} maps P^{(x)n} to P'^{(x)n}. So "less informative" pairs give
//   lower bounds and "more informative" pairs (of which P is a post-processing) give upper bounds, for every
//   number of compositions at once.
// * Connect-the-dots (upper): an outcome (a, b) with loss l in [l_k, l_{k+1}] is split into two outcomes
//   with losses exactly l_k and l_{k+1} and masses chosen to keep both a and b:
//   a_{k+1} = a (1 - e^{-(l - l_k)}) / (1 - e^{-step}), a_k = a - a_{k+1}. Merging them back gives the
//   original outcome, so the split pair is more informative: an upper bound (Doroshenko et al. 2022 reach
//   the same distribution from the privacy curve). Its delta agrees with the truth at every grid epsilon.
// * Merge-to-grid (lower, ours): outcomes are merged (a post-processing) in fractions such that every merged
//   outcome has a loss that is exactly a grid point: an outcome above l_t is merged with just enough of the
//   outcomes below l_t that sum(a_i (e^{l_t - l_i} - 1)) = 0. Sweeping from the top, each merged outcome takes
//   the rest of one bucket and a fraction of the next lower one. The last group, with nothing left below it,
//   is rounded down (a lower-loss outcome is stochastically smaller, which also only lowers delta for every
//   composition). Because it keeps both the A- and the B-mass, its error is O(step^2) per release for dense
//   distributions, where rounding down is O(step).
// * Rounding up/down: moving a loss up (down) makes the distribution stochastically larger (smaller), and
//   (1 - e^{eps - L})_+ is non-decreasing in L, so delta grows (shrinks) for every eps and composition.
// * Tails: an upper bound moves its top tail (mass <= tail_mass) to the infinity mass and its bottom tail up
//   to the lowest kept point; a lower bound moves its top tail down to the highest kept point and drops its
//   bottom tail. Each of these only raises (upper) or lowers (lower) losses.
#include <cstdint>
#include <vector>

#include "accounting/accountant_options.hpp"
#include "accounting/privacy_loss_distribution.hpp"

namespace noiselearn {

// One direction first||second of a pair as a list of outcomes: finite losses ln(first/second) with their
// first-probability, plus the first-probability of the outcomes where second is 0 (infinite loss).
// Outcomes with first == 0 never occur under `first` and are left out.
struct PrivacyLossAtoms {
  std::vector<double> losses;
  std::vector<double> masses;
  double infinity_mass = 0.0;
};

PrivacyLossAtoms privacy_loss_atoms(const std::vector<double>& first, const std::vector<double>& second);

// Discretises a single release onto the loss grid as an upper or a lower bound (see above). The loss step
// is options.loss_step, doubled as often as needed to fit the distribution into options.max_points.
PrivacyLossDistribution discretise(const PrivacyLossAtoms& atoms, BoundKind bound, const AccountantOptions& options);

// Moves a PLD onto a grid `factor` times coarser (grid points stay grid points), in the direction of its
// bound, with the method of `options` for that bound.
PrivacyLossDistribution coarsen(const PrivacyLossDistribution& pld, int64_t factor, const AccountantOptions& options);

// Removes leading and trailing tails of at most tail_mass each, in the direction of the PLD's bound.
void truncate_tails(PrivacyLossDistribution& pld, double tail_mass);

}  // namespace noiselearn
