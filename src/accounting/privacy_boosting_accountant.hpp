#pragma once
// Exact certificates for the privacy-boosting mechanism of Jiang et al. (core/privacy_boosting.hpp).
//
// Why not the paper's Theorem 1 / Proposition 1: they treat the region constants as if they shifted the kernel's
// PLD independently of where y falls; the errata (experiments/errata.md, E-Jiang-1) record under-statements of
// delta by up to 10x, and the worst
// neighbouring pair is not always where the paper puts it. Here the PLD is built from the densities.
//
// For one pair of answers (Q1, Q2) (the mechanism run on Q1 is A, on Q2 is B), the privacy loss of an output y is
//   L(y) = [ln f(y - Q1) - ln f(y - Q2)] + [ln w_A(y) - ln w_B(y)],
// the kernel loss (affine in y for a Gaussian kernel, piecewise affine with breaks at Q1, Q2 for a Laplace one)
// plus a constant that changes only at the four region edges (w = the eq. 2 weight, inside or outside). So the
// line is cut at the edges (and the Laplace breaks) into segments on which L is affine, and each segment into
// pieces on which L varies by at most loss_step / 8. A piece's A-mass is a difference of the kernel's CDF
// (log space). Upper bound: the piece's mass at its largest loss; lower bound: at its smallest (the piece is then
// a stochastically larger / smaller outcome: delta grows / shrinks for every eps and composition). The kernel's
// tails beyond Q1 -+ c (mass <= tail_mass each) become infinite loss in the upper bound and are dropped in the
// lower one. Where q = 1, an output inside S(Q1) but outside S(Q2) has infinite loss (a distinguishing event).
// Both are then discretised like every table (loss_discretisation.hpp).
//
// Neighbours. Query answers live on a lattice h Z (integer counts: h = 1), and neighbouring answers differ by
// d in {h, 2h, .., Delta} (Delta a whole number of lattice steps). The certificate covers every sequence of
// such pairs, chosen adaptively: its upper bound composes the profile envelope (profile_envelope.hpp) of every
// candidate pair in both directions, which dominates each release whatever pair it uses:
//   interval: translation invariant and mirror symmetric, so the pairs (0, -d);
//   fixed:    every lattice answer in [lower, upper] (and the edges, where clamped answers land), both orders;
//   relative: every lattice answer Q1 in [-Qmax, Qmax] with Q2 = Q1 - d (the mirror Q -> -Q gives the
//             others). Beyond Qmax both regions contain Q1 -+ (c + Delta), so the loss is the kernel loss plus a
//             constant of at most s = -ln(1 - pbar(Qmax - Delta) q): those pairs are dominated by the kernel's
//             own pair at d = Delta (worst for a log-concave kernel) with every loss raised by s.
// Answers between lattice points are not covered: refine h for real-valued answers.
// The lower bound is the worst of a few candidate pairs, each composed with itself (a sequence that can happen),
// both directions: the pair that attains the envelope most often and the worst pair at a few reference deltas.
#include <cstdint>
#include <string>
#include <vector>

#include "accounting/accountant_options.hpp"
#include "accounting/loss_discretisation.hpp"
#include "accounting/pair_accountant.hpp"
#include "core/privacy_boosting.hpp"

namespace noiselearn {

// How far apart the answers of neighbouring data sets may be (Jiang et al.'s Delta on the answers' lattice h Z): a
// property of the query, not a neighbour relation (those are core/neighbour_relation.hpp's; privacy boosting covers any
// sequence of neighbours).
struct AnswerSensitivity {
  double sensitivity = 1.0;  // Delta: the largest |Q1 - Q2| of neighbouring answers
  double query_step = 1.0;   // h: answers lie on h Z; Delta must be a whole number of steps
  void validate() const;     // throws InputError naming the field
  int64_t steps() const;     // Delta / h
};

// One candidate pair of answers (A = mechanism at first_query, B = at second_query). A kernel-only pair stands
// for every pair with |Q| >= Qmax (relative regions); its losses are raised by loss_slack.
struct BoostingPair {
  double first_query = 0.0;
  double second_query = 0.0;
  bool kernel_only = false;
  double loss_slack = 0.0;
  std::string description() const;
};

// The candidate pairs of a mechanism (see above).
std::vector<BoostingPair> boosting_candidate_pairs(const PrivacyBoostingMechanism& mechanism,
                                                   const AnswerSensitivity& answer_bound,
                                                   const AccountantOptions& options);

// The privacy-loss atoms of pair A||B as an upper or a lower bound (before discretisation).
PrivacyLossAtoms boosting_loss_atoms(const PrivacyBoostingMechanism& mechanism, const BoostingPair& pair,
                                     BoundKind bound, const AccountantOptions& options);

struct BoostingPairProfile {
  BoostingPair pair;
  int64_t points_attained = 0;  // grid points where this pair (either direction) attains the envelope
};

struct PrivacyBoostingBounds {
  PairBounds bounds;                       // single release (compose with compose_bounds)
  std::vector<BoostingPairProfile> pairs;  // every candidate, with how often it is the worst
  BoostingPair worst_pair;                 // the pair that attains the envelope most often
  // The worst single pair at delta = 1e-3, 1e-5, 1e-7, 1e-9 (largest single-release epsilon upper bound).
  std::vector<std::pair<double, BoostingPair>> worst_pair_at_delta;
  std::vector<BoostingPair> lower_bound_pairs;  // the scenarios of the lower bound
};

// Single-release certified bounds of the mechanism under the neighbouring relation.
PrivacyBoostingBounds privacy_boosting_bounds(const PrivacyBoostingMechanism& mechanism,
                                              const AnswerSensitivity& answer_bound, const AccountantOptions& options);

// delta(eps) of one pair of answers for one release by direct numerical integration of the hockey-stick
// divergence, int (f_A(y) - e^eps f_B(y))_+ dy, with the composite Simpson rule on `points` points per segment
// between breakpoints (a reference for tests; not a certificate).
double boosting_pair_delta_by_integration(const PrivacyBoostingMechanism& mechanism, const BoostingPair& pair,
                                          double epsilon, int64_t points);

// The paper's own value (Theorem 1 + Proposition 1, with the PLD quantities of eq. 4 and 6) for one pair of
// answers and one release: max over nothing, the pair is given; Gaussian kernel profile from Balle-Wang.
// Printed beside the certificate, labelled as the paper's heuristic; never used as a guarantee.
double paper_heuristic_delta(const PrivacyBoostingMechanism& mechanism, double first_query, double second_query,
                             double epsilon);
// The pair the paper evaluates (section 4): interval (0, Delta); fixed (lower, lower + Delta); relative (0, Delta).
std::pair<double, double> paper_heuristic_pair(const PrivacyBoostingMechanism& mechanism, double sensitivity);
// The least eps with paper_heuristic_delta <= delta (bisection).
double paper_heuristic_epsilon(const PrivacyBoostingMechanism& mechanism, double sensitivity, double delta);

}  // namespace noiselearn
