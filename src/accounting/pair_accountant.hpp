#pragma once
// The certified accountant for a family of dominating pairs: rigorous upper and lower bounds on
// delta(eps) and eps(delta) after n compositions, both directions.
//
// What is covered is the family's neighbouring relation (core/dominating_pair.hpp):
//
// * any sequence (default), additive noise: a release may move by any d in {-k..k} cells. The single-release
//   PLDs are A||B of every shift up (shift j up) and B||A of every shift up (= A||B of shift j down); the upper
//   bound composes their profile envelope (profile_envelope.hpp), a dominating pair of every release whatever
//   its difference (Zhu, Dong, Wang 2022, Def. 7 and Thm. 10 for adaptive composition). A mirror-symmetric
//   table has identical up and down PLDs, so with a single shift (Thm 15 or k = 1) no envelope is needed.
// * any sequence, subsampled mixture: the same record is added (or removed) in every release, so A||B and
//   B||A are composed separately (the worse is the guarantee); each is the envelope over shifts of both signs.
// * same direction: all releases move up, or all move down. The upper bound is the worse of the composed
//   envelope of A||B over the shifts (all up) and of B||A (all down).
//
// The lower bound is the worst of scenarios that can happen: the same-shift compositions of the pairs that
// attain the envelope most often (both directions), and, for an asymmetric additive table under the
// any-sequence relation, compositions that mix shifts up and down (a releases up, n - a down).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "accounting/accountant_options.hpp"
#include "accounting/adaptive_composition.hpp"
#include "accounting/privacy_loss_distribution.hpp"
#include "accounting/two_outcome_bound.hpp"
#include "core/dominating_pair.hpp"

namespace noiselearn {

// The questions a composition is made for: delta at each epsilon, epsilon at each delta. Under several_pairs auto they
// decide whether the exact adaptive programme runs: only where the envelope's bracket at one of them is wider than
// adaptive_skip_width (relative) and the floating-point allowance or the truncations do not make that width.
struct AccountingQueries {
  std::vector<double> epsilons, deltas;
  bool empty() const { return epsilons.empty() && deltas.empty(); }
};

// The PLDs of the two directions of one scenario. second_to_first is empty when it is identical to
// first_to_second.
struct DirectionalPLDs {
  std::string name;
  PrivacyLossDistribution first_to_second;                 // A||B
  std::optional<PrivacyLossDistribution> second_to_first;  // B||A
  const PrivacyLossDistribution& direction(bool reverse) const {
    return reverse && second_to_first ? *second_to_first : first_to_second;
  }
};

// The same composition computed with exponential tilting (exponential_tilt.hpp): tighter floating-point
// allowances near the eps it was tilted for. Every alternative is rigorous, so the bounds take the best of all.
struct TiltedComposition {
  double target_epsilon = 0.0;
  double tail_mass = 0.0;  // the truncation's tail mass per side and step it was composed with
  DirectionalPLDs upper;
  std::vector<DirectionalPLDs> lower;
};

// Bounds of one pair family before or after composition.
struct PairBounds {
  std::string pair_description;
  std::string shift_justification;
  int64_t compositions = 1;
  DirectionalPLDs upper;               // one scenario dominating all
  std::vector<DirectionalPLDs> lower;  // worst of these is the lower bound
  // Who the neighbours are (core/neighbour_relation.hpp): the sequences, and the record relation of a mechanism
  // without a grid (sampled_release.hpp); none for a table's shifts.
  Neighbours neighbours;
  // Single-release lower bounds of the maximal shift (A||B = shift up, B||A = shift down) for scenarios that
  // mix both signs; empty unless the relation is any-sequence and the additive table is asymmetric.
  std::optional<DirectionalPLDs> mixed_sign_lower;
  // After composition: the single-release bounds it came from and the options, so that tilted alternatives can
  // be computed on demand (refined_for_epsilon); empty for heterogeneous compositions (not refined).
  std::shared_ptr<const PairBounds> single_release;
  AccountantOptions options;
  // The family it came from (set by account()), so that a refinement with a smaller tail mass can discretise the
  // single release again with it; and that re-discretisation, once made.
  std::shared_ptr<const PairFamily> family;
  // Whether account() was given the queries (and so made the default's per-query choices for them).
  bool composed_for_queries = false;
  // For bounds that come from elsewhere than a family (a mechanism without a grid, sampled_release.hpp): how to make
  // the single release again with other options. Unset: only `family` can.
  std::function<PairBounds(const AccountantOptions&)> rediscretise;
  std::shared_ptr<const PairBounds> fine_single_release;
  std::vector<TiltedComposition> tilted;
  // omega of one release: the probability of a distinguishing event (infinite loss), A||B and B||A.
  double single_release_infinity_mass_first = 0.0;
  double single_release_infinity_mass_second = 0.0;
  // omega after the composition, A||B and B||A: 1 - prod_i (1 - omega_i)^{n_i} over the releases (for a family
  // whose upper bound covers both signs in one envelope, each release may take the worse direction).
  double composed_infinity_mass_first = 0.0;
  double composed_infinity_mass_second = 0.0;
  // Several candidate pairs per release: the candidates of the exact adaptive programme (adaptive_composition.hpp)
  // per direction of the upper bound: one set for an additive table under the any-sequence relation (both signs,
  // which covers both directions: upper has no second_to_first), A||B and B||A for the subsampled mixture. Empty
  // when every release has one undominated pair (nothing to gain).
  std::vector<AdaptiveReleases> adaptive_single;
  // After composition: the programme's curves, aligned with adaptive_single; empty when it was not run. Each
  // direction's upper bound is the smaller of the envelope's and the programme's; lower bounds take the largest.
  std::vector<AdaptiveCurves> adaptive;
  // Lower bounds by the releases' post-processing to two outcomes (two_outcome_bound.hpp), one per direction, for a
  // mechanism without a grid (sampled_release.hpp); their `compositions` is the releases they cover (1 for a single
  // release; compose_bounds multiplies it; a heterogeneous composition has none). Lower bounds take the largest.
  std::vector<TwoOutcomeComposition> two_outcome;
  // How releases with several candidate pairs were accounted, for the certificate (empty when not applicable).
  std::string several_pairs_note;
  // When a table's exactly symmetric copy is accounted in its place (core/dominating_pair.hpp): a bound on the total
  // variation between the table's releases and the copy's over the whole composition (n times the family's
  // substitution_tv; summed over the parts of a heterogeneous one). Every query pays for it: delta moves by at most
  // (1 + e^eps) times it, both ways. 0 otherwise.
  double substitution_tv = 0.0;
  // (1 + e^eps) substitution_tv, rounded up: what the copy's upper delta gains and its lower delta loses at eps.
  double substitution_allowance(double epsilon) const;
  // An upper bound on epsilon(delta) of the table from an upper-bound curve of the copy's (copy_epsilon: delta ->
  // epsilon), the allowance paid; copy_epsilon itself when no copy is accounted.
  double epsilon_paying_allowance(const std::function<double(double)>& copy_epsilon, double delta) const;

  // Upper bound of one direction (0: A||B, or both signs for additive tables; 1: B||A), the best alternative.
  double delta_upper_of_direction(bool reverse, double epsilon) const;
  double epsilon_upper_of_direction(bool reverse, double delta) const;
  // Whether the exact adaptive programme ran over all the releases at once (not in blocks): then it bounds both sides,
  // and the fixed sequences that mix releases up and down are not composed.
  bool whole_adaptive_programme() const;
  // Whether the adaptive programme's upper bound is the tighter one at eps (delta) in some direction.
  bool adaptive_upper_wins_at_epsilon(double epsilon) const;
  bool adaptive_upper_wins_at_delta(double delta) const;
  bool adaptive_lower_wins_at_epsilon(double epsilon) const;
  bool adaptive_lower_wins_at_delta(double delta) const;
  // Whether the two-outcome bound (two_outcome) is the lower bound's best at this query.
  bool two_outcome_lower_wins_at_epsilon(double epsilon) const;
  bool two_outcome_lower_wins_at_delta(double delta) const;

  double delta_upper(double epsilon) const;
  double delta_lower(double epsilon) const;
  double epsilon_upper(double delta) const;  // clamped to >= 0
  double epsilon_lower(double delta) const;  // clamped to >= 0
  // "A||B", "B||A", or "A||B = B||A" for mirror pairs: the direction whose upper bound is the larger.
  std::string dominating_direction_at_epsilon(double epsilon) const;
  std::string dominating_direction_at_delta(double delta) const;

  // The largest absolute floating-point allowance of any PLD at eps (upper and lower, untilted and tilted ones
  // take their smallest).
  double absolute_allowance(double epsilon) const;
  // True when the floating-point allowance, not the discretisation, makes most of the bracket at eps.
  bool allowance_dominates(double epsilon) const;
  // The largest probability mass the upper bound's truncations moved to infinity (over the directions).
  double truncated_mass() const;
  // True when that mass, not the discretisation, makes most of the bracket at eps.
  bool truncation_dominates(double epsilon) const;
  // The tail mass per truncation that keeps the truncated mass below 1e-4 delta (at least 1e-25, at most the
  // options').
  double tail_mass_for_delta(double delta) const;
};

// Asking a result more is a call to the accountant: these return the bounds with what a further question needs (the
// result they are given is not changed; pass it with std::move where it is no longer needed, to spare the copy).
//
// A composition tilted for eps added (each PLD with its Chernoff-optimal tilt), unless one close to it exists; the
// bounds as they are without single_release. tail_mass > 0 composes it with that tail mass per truncation instead of
// the options' (the mass truncated away is paid in full by the upper bound, about 2 n tail_mass, which at small delta
// can be most of the bracket).
PairBounds refined_for_epsilon(PairBounds bounds, double epsilon, double tail_mass = 0.0);
// Refined where eps(delta) is decided: at the current upper bound on eps, or, when that is infinite because the
// untilted allowance exceeds delta, at the Chernoff estimate of eps(delta).
PairBounds refined_for_delta(PairBounds bounds, double delta);
// Under several_pairs auto, when the exact adaptive programme has not run: with it run if it would narrow the bracket
// at one of the queries (as account() with these queries decides); as they are otherwise. Bounds of a family that
// account() composes per query (composed_per_query), composed without queries: composed again for these.
PairBounds adapted_to_queries(PairBounds bounds, const AccountingQueries& queries);

// Discretises one release of every pair of the family (no composition yet).
PairBounds single_release_bounds(const PairFamily& family, const AccountantOptions& options);

// n-fold composition of single-release bounds. With queries, the exact adaptive programme (several_pairs auto) runs
// only if it would narrow one of their brackets; without, if it would narrow the epsilon bracket at delta = 1e-3,
// 1e-6 or 1e-10 above the distinguishing events.
PairBounds compose_bounds(const PairBounds& single, int64_t n, const AccountantOptions& options,
                          const AccountingQueries& queries = {});

// Shorthand: single_release_bounds then compose_bounds. Under several_pairs auto with queries, a family of one pair
// (or the symmetric copy of a table symmetric up to rounding) composed at least kPerQueryCompositionFrom times is
// discretised at the loss step chosen for the queries (loss_step_choice.hpp) and composed by one FFT power, as events
// are; the bounds' options say so.
PairBounds account(const PairFamily& family, int64_t n, const AccountantOptions& options,
                   const AccountingQueries& queries = {});
inline constexpr int64_t kPerQueryCompositionFrom = 1024;
// Whether account() with queries composes this family per query (above).
bool composed_per_query(const PairFamily& family, int64_t n, const AccountantOptions& options);

// Heterogeneous composition of several mechanisms, each with its pair family and its count. The directions
// are composed consistently (A||B of every part together); the lower bound uses each part's first scenario.
PairBounds account_heterogeneous(const std::vector<std::pair<PairFamily, int64_t>>& parts,
                                 const AccountantOptions& options);
// The same from single-release bounds of any origin (families, mechanisms without a grid: sampled_release.hpp), each
// with its count.
PairBounds compose_heterogeneous_bounds(const std::vector<std::pair<PairBounds, int64_t>>& parts,
                                        const AccountantOptions& options);

}  // namespace noiselearn
