#pragma once
// The bounds of a pair family (or of a mechanism without a grid) before or after composition, and the questions they
// answer: delta(eps) and eps(delta), upper and lower, per direction; which method gives each bound; whether the
// floating-point allowance or the truncations make a bracket. How they are made: pair_accountant.hpp (one family),
// heterogeneous_composition.hpp (several), refinement.hpp (a further question: a tilted composition, the adaptive
// programme for queries), sampled_release.hpp (mechanisms without a grid).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "accounting/accountant_options.hpp"
#include "accounting/adaptive_composition.hpp"
#include "accounting/bucketed_test.hpp"
#include "accounting/closed_forms.hpp"
#include "accounting/privacy_loss_distribution.hpp"
#include "accounting/two_outcome_bound.hpp"
#include "core/dominating_pair.hpp"
#include "core/neighbour_relation.hpp"

namespace noiselearn {

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

// What is accounted, as the certificate names it: the pair ("pair"), why the pairs checked cover every neighbouring
// input ("pairs checked") and who the neighbours are (core/neighbour_relation.hpp: the sequences, and the record
// relation of a mechanism without a grid; none for a table's shifts).
struct AccountedPairs {
  std::string pair;
  std::string pairs_checked;
  Neighbours neighbours;
};

// omega, the probability of a distinguishing event (an infinite privacy loss), in each direction: A||B and B||A.
struct InfinityMasses {
  double first = 0.0;
  double second = 0.0;
};

// Of a single release, what its composition needs besides the upper and lower scenarios.
struct ReleaseCandidates {
  // Lower bounds of the maximal shift (A||B = shift up, B||A = shift down) for scenarios that mix both signs; empty
  // unless the relation is any-sequence and the additive table is asymmetric.
  std::optional<DirectionalPLDs> mixed_sign_lower;
  // Several candidate pairs per release: the candidates of the exact adaptive programme (adaptive_composition.hpp)
  // per direction of the upper bound: one set for an additive table under the any-sequence relation (both signs,
  // which covers both directions: upper has no second_to_first), A||B and B||A for the subsampled mixture. Empty
  // when every release has one undominated pair (nothing to gain).
  std::vector<AdaptiveReleases> adaptive;
};

// The bounds computed otherwise than by composing the dominating scenario, each with its own result type. Every one
// is rigorous: upper bounds take the least, lower bounds the largest.
struct BoundAlternatives {
  std::vector<TiltedComposition> tilted;
  // The exact adaptive programme's curves, aligned with the single release's candidates (ReleaseCandidates::adaptive);
  // empty when it was not run.
  std::vector<AdaptiveCurves> adaptive;
  // Lower bounds by the releases' post-processing to two outcomes (two_outcome_bound.hpp), one per direction, for a
  // mechanism without a grid (sampled_release.hpp); their `compositions` is the releases they cover (1 for a single
  // release; compose_bounds multiplies it; a heterogeneous composition has none).
  std::vector<TwoOutcomeComposition> two_outcome;
  // Lower bounds by a threshold test on the releases' bucket labels (bucketed_test.hpp), one per direction, for a
  // mechanism without a grid; composed with the releases (compose_bounds; a heterogeneous composition has none).
  std::vector<BucketedTest> bucketed;
  // How releases with several candidate pairs were accounted, for the certificate (empty when not applicable).
  std::string several_pairs_note;
  // delta(eps) in closed form with a rounding bracket (closed_forms.hpp), where the whole composition has one.
  std::optional<ClosedFormBounds> closed_form;
};

struct PairBounds;

// After composition, what a further question needs to compose the same releases again (refinement.hpp); empty for
// heterogeneous compositions (not refined).
struct RefinementContext {
  // The single-release bounds the composition came from, and the options it was made with.
  std::shared_ptr<const PairBounds> single_release;
  AccountantOptions options;
  // The family it came from (set by account()), so that a refinement with a smaller tail mass can discretise the
  // single release again with it; and that re-discretisation, once made.
  std::shared_ptr<const PairFamily> family;
  std::shared_ptr<const PairBounds> fine_single_release;
  // For bounds that come from elsewhere than a family (a mechanism without a grid, sampled_release.hpp): how to make
  // the single release again with other options. Unset: only `family` can.
  std::function<PairBounds(const AccountantOptions&)> rediscretise;
  // Whether account() was given the queries (and so made the default's per-query choices for them).
  bool composed_for_queries = false;
  // When max_points stopped the default from refining the loss step to an eighth of one release's loss spread
  // (loss_step_choice.hpp): the step the spread asked for; 0 otherwise.
  double loss_step_wanted = 0.0;
};

// Bounds of one pair family before or after composition.
struct PairBounds {
  AccountedPairs accounted;
  int64_t compositions = 1;
  DirectionalPLDs upper;               // one scenario dominating all
  std::vector<DirectionalPLDs> lower;  // worst of these is the lower bound
  // omega of one release, and after the composition: 1 - prod_i (1 - omega_i)^{n_i} over the releases (for a family
  // whose upper bound covers both signs in one envelope, each release may take the worse direction).
  InfinityMasses single_release_infinity_mass;
  InfinityMasses composed_infinity_mass;
  // When a table's exactly symmetric copy is accounted in its place (core/dominating_pair.hpp): a bound on the total
  // variation between the table's releases and the copy's over the whole composition (n times the family's
  // substitution_tv; summed over the parts of a heterogeneous one). Every query pays for it: delta moves by at most
  // (1 + e^eps) times it, both ways. 0 otherwise.
  double substitution_tv = 0.0;
  ReleaseCandidates candidates;  // of a single release
  BoundAlternatives alternatives;
  RefinementContext context;  // after composition

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
  // Whether the two-outcome bound (alternatives.two_outcome) is the lower bound's best at this query.
  bool two_outcome_lower_wins_at_epsilon(double epsilon) const;
  bool two_outcome_lower_wins_at_delta(double delta) const;
  // The bucketed tests' best lower bounds (0 when there are none).
  double bucketed_delta_lower(double epsilon) const;
  double bucketed_epsilon_lower(double delta) const;

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

}  // namespace noiselearn
