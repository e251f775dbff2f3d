#pragma once
// Hybrid Renyi DP (Xiao et al., section 4.2: Def. 7, Thm 2, eq. 24) of an additive pair, as a COMPARISON (the paper's
// accountant for one-sided noise), not a certificate.
//
// For an ordered pair (A, B) of output distributions (A = the table, B = the table shifted by `shift` grid steps,
// or the reverse), the outputs where B = 0 < A are degenerate (they reveal A), and
//   delta_p = A(B = 0),   partial Renyi moment D_alpha = sum over {A > 0, B > 0} of A^alpha B^(1 - alpha)   (eq. 23),
// the partial Renyi divergence being log D_alpha / (alpha - 1). Thm 2: T releases, each (alpha, eps_p, delta_p)-HRDP,
// are (eps, delta)-DP for every delta' > 0 with
//   eps = T eps_p + log(1/delta') / (alpha - 1),   delta = T delta_p + delta'                (eq. 24)
// so at a target delta, delta' = delta - T delta_p (infinite eps if that is <= 0), and eps is minimised over alpha.
// Def. 7 takes the sup over both orders separately (eps_p and delta_p each the worse of the two directions): sound
// for neighbours whose difference may change sign from release to release. The paper's H(R0, P) (section 4.3)
// pairs each direction's divergence with its own delta_p and takes the max, which covers only sequences that all
// move the same way; both are offered. Sums are formed in log space (logsumexp).
#include <cstdint>
#include <vector>

#include "core/dominating_pair.hpp"
#include "core/noise_table.hpp"

namespace noiselearn {

struct HybridRenyiDirection {
  double log_partial_moment = 0.0;  // log D_alpha (-inf if A and B share no outcome)
  double degenerate_mass = 0.0;     // delta_p = A(B = 0)
};
// forward: A = table, B = table shifted up by shift_steps (B(x) = A(x - shift)); otherwise the reverse.
HybridRenyiDirection hybrid_renyi_direction(const NoiseTable& table, int64_t shift_steps, double alpha, bool forward);

// The neighbour relation is the certificates' own (core/dominating_pair.hpp): under kAnySequence (Def. 7) eps_p and
// delta_p are each the max over both orders; under kSameDirection (the paper's H) the max over directions is taken of
// the whole expression.

struct HybridRenyiEpsilon {
  double epsilon = 0.0;  // +inf if T delta_p >= delta for every alpha
  double alpha = 0.0;    // the minimising order
};
// eps of eq. 24 at one alpha > 1.
double hybrid_renyi_epsilon_at(const NoiseTable& table, int64_t shift_steps, int64_t compositions, double delta,
                               double alpha, NeighbourRelation neighbours = NeighbourRelation::kAnySequence);
// The least eps over the given orders (each > 1). InputError for bad arguments.
HybridRenyiEpsilon hybrid_renyi_epsilon(const NoiseTable& table, int64_t shift_steps, int64_t compositions,
                                        double delta, const std::vector<double>& alphas,
                                        NeighbourRelation neighbours = NeighbourRelation::kAnySequence);
// The same from dominating pairs (every pair of a PairFamily: each shift, tails included), both orders of each
// pair, Def. 7's sup (the any-direction reading). Used by `evaluate --compare`.
HybridRenyiEpsilon hybrid_renyi_epsilon(const std::vector<DominatingPair>& pairs, int64_t compositions, double delta,
                                        const std::vector<double>& alphas);

// The orders the paper searches: the integers 2 .. 25.
std::vector<double> paper_integer_alphas();

}  // namespace noiselearn
