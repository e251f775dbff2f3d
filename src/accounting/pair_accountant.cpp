#include "accounting/pair_accountant.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <tuple>

#include "accounting/adaptive_decision.hpp"
#include "accounting/composition.hpp"
#include "accounting/loss_discretisation.hpp"
#include "accounting/loss_step_choice.hpp"
#include "accounting/profile_envelope.hpp"
#include "accounting/scenario_composition.hpp"
#include "core/errors.hpp"

namespace noiselearn {

namespace {

// B is A reflected, outcome for outcome (the outcomes beyond the grid swap sides too).
bool is_own_mirror(const DominatingPair& pair) {
  const size_t n = pair.a.size();
  for (size_t i = 0; i < n; ++i)
    if (pair.b[i] != pair.a[n - 1 - i]) return false;
  const size_t m = pair.a_beyond.size();
  if (pair.b_beyond.size() != m) return false;
  for (size_t i = 0; i < m; ++i)
    if (pair.b_beyond[i] != pair.a_beyond[m - 1 - i]) return false;
  return true;
}

DirectionalPLDs discretise_pair(const DominatingPair& pair, BoundKind bound, const AccountantOptions& options) {
  DirectionalPLDs result;
  result.name = pair.description;
  const std::vector<double> a = pair.all_a(), b = pair.all_b();
  result.first_to_second = discretise(privacy_loss_atoms(a, b), bound, options);
  if (!is_own_mirror(pair)) result.second_to_first = discretise(privacy_loss_atoms(b, a), bound, options);
  return result;
}

// Envelope of several single-release upper bounds, or the input itself when there is only one.
PrivacyLossDistribution envelope_of(const std::vector<PrivacyLossDistribution>& inputs, std::vector<int64_t>& attained,
                                    const AccountantOptions& options) {
  if (inputs.size() == 1) {
    attained.assign(1, 1);
    return inputs.front();
  }
  EnvelopeResult env = profile_envelope(inputs, options);
  attained = env.points_attained;
  return env.envelope;
}

// Every pair's pessimistic single-release PLDs: forward[i] = A||B of pair i; backward[i] = B||A (identical to
// forward for a pair that is its own mirror).
struct PessimisticReleases {
  std::vector<DirectionalPLDs> singles;
  std::vector<PrivacyLossDistribution> forward, backward;
  bool all_own_mirror = true;
};

PessimisticReleases pessimistic_releases(const PairFamily& family, const AccountantOptions& options) {
  PessimisticReleases r;
  for (const auto& pair : family.pairs) r.singles.push_back(discretise_pair(pair, BoundKind::kUpper, options));
  for (const auto& s : r.singles) {
    r.forward.push_back(s.first_to_second);
    r.backward.push_back(s.direction(true));
    r.all_own_mirror = r.all_own_mirror && !s.second_to_first;
  }
  return r;
}

bool additive_any_sequence(const PairFamily& family) {
  return family.kind == PairKind::kAdditive && family.neighbours == NeighbourRelation::kAnySequence;
}

// The upper scenario, a dominating pair of every release whatever its difference, and how many grid points each pair
// attains it at (both directions added).
DirectionalPLDs upper_envelope(const PairFamily& family, const PessimisticReleases& r, const AccountantOptions& options,
                               std::vector<int64_t>& attained) {
  const size_t count = r.singles.size();
  attained.assign(count, 0);
  const std::string shifts = family.single_shift ? fmt::format("shift {} cells", family.sensitivity_cells)
                                                 : fmt::format("shifts 1..{} cells", family.sensitivity_cells);
  DirectionalPLDs upper;
  if (additive_any_sequence(family)) {
    // One envelope over every shift, up and down.
    std::vector<PrivacyLossDistribution> all = r.forward;
    if (!r.all_own_mirror) all.insert(all.end(), r.backward.begin(), r.backward.end());
    std::vector<int64_t> attained_all;
    upper.first_to_second = envelope_of(all, attained_all, options);
    for (size_t i = 0; i < count; ++i) attained[i] = attained_all[i] + (r.all_own_mirror ? 0 : attained_all[i + count]);
    upper.name =
        all.size() == 1 ? family.pairs.front().description : fmt::format("envelope of {}, up and down", shifts);
  } else {
    // Two directions, each enveloped over its pairs (for a mixture, over both signs of the shift).
    std::vector<int64_t> attained_forward, attained_backward;
    upper.first_to_second = envelope_of(r.forward, attained_forward, options);
    if (!r.all_own_mirror) upper.second_to_first = envelope_of(r.backward, attained_backward, options);
    for (size_t i = 0; i < count; ++i)
      attained[i] = attained_forward[i] + (r.all_own_mirror ? 0 : attained_backward[i]);
    upper.name = count == 1 ? family.pairs.front().description : fmt::format("envelope of {}", shifts);
  }
  return upper;
}

std::string family_description(const PairFamily& family) {
  if (family.pairs.size() == 1) return family.pairs.front().description;
  return fmt::format(
      "{} ({})", family.pairs.back().description,
      family.single_shift ? "both signs" : "every shift 1.." + std::to_string(family.sensitivity_cells) + " cells");
}

// Lower bound: the (at most four) pairs that attain the envelope at the most grid points, always including the
// maximal shift (the last additive pair; for a mixture the last two are the maximal shift's two signs).
std::vector<DirectionalPLDs> lower_scenarios(const PairFamily& family, const std::vector<int64_t>& attained,
                                             const AccountantOptions& options) {
  const size_t count = attained.size();
  std::vector<size_t> order(count);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return attained[x] > attained[y]; });
  const size_t maximal = family.kind == PairKind::kAdditive || family.mirror_symmetric ? count - 1 : count - 2;
  std::vector<size_t> chosen{maximal};
  for (size_t i : order) {
    if (chosen.size() >= 4) break;
    if (attained[i] > 0 && std::find(chosen.begin(), chosen.end(), i) == chosen.end()) chosen.push_back(i);
  }
  std::vector<DirectionalPLDs> lower;
  for (size_t i : chosen) lower.push_back(discretise_pair(family.pairs[i], BoundKind::kLower, options));
  return lower;
}

// Candidates of the exact adaptive programme: every pair's pessimistic PLD in each direction the upper bound covers,
// less those another candidate dominates (profile_envelope.hpp), the ones that attain the envelope most often tried
// as dominators first; the optimistic PLDs of the same pairs for the lower run.
AdaptiveReleases adaptive_candidates(const PairFamily& family, const PessimisticReleases& r,
                                     const std::vector<std::pair<size_t, bool>>& pairs_and_directions,
                                     const std::vector<int64_t>& attained_counts, const AccountantOptions& options) {
  std::vector<PrivacyLossDistribution> uppers;
  for (const auto& [i, reverse] : pairs_and_directions) uppers.push_back(r.singles[i].direction(reverse));
  std::vector<size_t> by_attained(uppers.size());
  std::iota(by_attained.begin(), by_attained.end(), 0);
  std::stable_sort(by_attained.begin(), by_attained.end(),
                   [&](size_t x, size_t y) { return attained_counts[x] > attained_counts[y]; });
  by_attained.resize(std::min<size_t>(by_attained.size(), 4));
  double step = 0.0;
  for (const auto& p : uppers) step = std::max(step, p.loss_step);
  for (auto& p : uppers) p = coarsen(p, std::llround(step / p.loss_step), options);
  AdaptiveReleases releases;
  for (size_t x : undominated_inputs(uppers, by_attained)) {
    const auto& [i, reverse] = pairs_and_directions[x];
    releases.upper.push_back(uppers[x]);
    const std::vector<double> a = family.pairs[i].all_a(), b = family.pairs[i].all_b();
    releases.lower.push_back(
        discretise(reverse ? privacy_loss_atoms(b, a) : privacy_loss_atoms(a, b), BoundKind::kLower, options));
  }
  return releases;
}

// The candidate sets per direction of the upper bound (ReleaseCandidates::adaptive); none where every release has one
// undominated pair.
std::vector<AdaptiveReleases> adaptive_candidate_sets(const PairFamily& family, const PessimisticReleases& r,
                                                      const std::vector<int64_t>& attained,
                                                      const AccountantOptions& options) {
  const size_t count = r.singles.size();
  std::vector<AdaptiveReleases> sets;
  if (additive_any_sequence(family)) {
    std::vector<std::pair<size_t, bool>> all;
    for (size_t i = 0; i < count; ++i) all.emplace_back(i, false);
    if (!r.all_own_mirror)
      for (size_t i = 0; i < count; ++i) all.emplace_back(i, true);
    // attained[] merged both directions; any order of preference is sound, this one is a good guess.
    std::vector<int64_t> counts(all.size(), 0);
    for (size_t x = 0; x < all.size(); ++x) counts[x] = attained[all[x].first];
    if (all.size() > 1) {
      AdaptiveReleases releases = adaptive_candidates(family, r, all, counts, options);
      if (releases.upper.size() > 1) sets.push_back(std::move(releases));
    }
  } else if (count > 1) {
    std::vector<std::pair<size_t, bool>> forward_pairs, backward_pairs;
    for (size_t i = 0; i < count; ++i) {
      forward_pairs.emplace_back(i, false);
      backward_pairs.emplace_back(i, true);
    }
    AdaptiveReleases first = adaptive_candidates(family, r, forward_pairs, attained, options);
    AdaptiveReleases second =
        r.all_own_mirror ? AdaptiveReleases{} : adaptive_candidates(family, r, backward_pairs, attained, options);
    if (first.upper.size() > 1 || second.upper.size() > 1) {
      sets.push_back(std::move(first));
      if (!r.all_own_mirror) sets.push_back(std::move(second));
    }
  }
  return sets;
}

// Distinguishing events only (the upper bound's infinity mass also holds the truncated top tail), worst pair.
InfinityMasses distinguishing_events(const PairFamily& family) {
  InfinityMasses omega;
  for (const auto& pair : family.pairs) {
    const std::vector<double> a = pair.all_a(), b = pair.all_b();
    omega.first = std::max(omega.first, privacy_loss_atoms(a, b).infinity_mass);
    omega.second = std::max(omega.second, privacy_loss_atoms(b, a).infinity_mass);
  }
  return omega;
}

}  // namespace

PairBounds single_release_bounds(const PairFamily& family, const AccountantOptions& options) {
  options.validate();
  if (family.pairs.empty()) throw InputError("no dominating pair to account");
  PairBounds bounds;
  bounds.accounted.pairs_checked = family.justification;
  bounds.accounted.neighbours.sequences = family.neighbours;
  bounds.substitution_tv = family.substitution_tv;
  const PessimisticReleases releases = pessimistic_releases(family, options);
  std::vector<int64_t> attained;
  bounds.upper = upper_envelope(family, releases, options, attained);
  bounds.accounted.pair = family_description(family);
  bounds.lower = lower_scenarios(family, attained, options);
  if (additive_any_sequence(family) && !releases.all_own_mirror) {
    DirectionalPLDs mixed = bounds.lower.front();
    if (!mixed.second_to_first) mixed.second_to_first = mixed.first_to_second;
    bounds.candidates.mixed_sign_lower = std::move(mixed);
  }
  bounds.candidates.adaptive = adaptive_candidate_sets(family, releases, attained, options);
  bounds.single_release_infinity_mass = distinguishing_events(family);
  bounds.composed_infinity_mass = bounds.single_release_infinity_mass;
  return bounds;
}

PairBounds compose_bounds(const PairBounds& single, int64_t n, const AccountantOptions& options,
                          const AccountingQueries& queries) {
  PairBounds result = single;
  result.context.single_release = std::make_shared<const PairBounds>(single);
  result.context.options = options;
  result.compositions = n;
  result.substitution_tv = single.substitution_tv * static_cast<double>(n) * (1.0 + 1e-12);
  for (auto& t : result.alternatives.two_outcome) t.compositions *= n;  // n releases of a pair of releases each covered
  result.alternatives.bucketed.clear();                                 // composed below, where a query needs them
  const auto [first, second] = composition_omegas(single);
  result.composed_infinity_mass.first = -std::expm1(log_survival(first, n));
  result.composed_infinity_mass.second = -std::expm1(log_survival(second, n));
  std::tie(result.upper, result.lower) = compose_scenarios(single.upper, single.lower, n, options);
  result.candidates.mixed_sign_lower.reset();
  run_adaptive_programme(result, single.candidates.adaptive, n, options, queries);
  // The sequences that mix releases up and down: only when the whole adaptive programme did not run. Its lower run
  // bounds the worst adaptive sequence, which is at least the worst fixed one, from below (for the 401-point HRDP
  // optimum at T = 500 these compositions were a third of the certificate's time and never the better lower bound).
  if (single.candidates.mixed_sign_lower && !result.whole_adaptive_programme())
    for (auto& scenario : mixed_sign_scenarios(*single.candidates.mixed_sign_lower, n, options))
      result.lower.push_back(std::move(scenario));
  // One release's bucketed tests answer as they are; composed ones are a refinement (refinement.hpp: two more
  // compositions per direction, made only for a query whose bracket stays wide).
  if (n == 1)
    for (const auto& test : single.alternatives.bucketed)
      result.alternatives.bucketed.push_back(*composed_bucketed_test(test, 1, options));
  return result;
}

namespace {

// Whether accounting a table's symmetric copy costs the queries at most a quarter of the default's tolerance
// (adaptive_skip_width, relative): the allowance for the difference moves no delta, and no epsilon, by more than that
// share of itself. Within it the copy's bracket is what the table's own pairs would give, up to what the default
// accepts anyway; beyond it the table's own pairs are accounted.
bool copy_allowance_within_tolerance(const PairBounds& copy, const AccountingQueries& queries, double tolerance) {
  const double share = 0.25 * tolerance;
  for (double eps : queries.epsilons) {
    const double upper = copy.delta_upper(eps);
    if (!(copy.substitution_allowance(eps) <= share * upper)) return false;
  }
  if (queries.deltas.empty()) return true;
  PairBounds bare = copy;  // the copy's own bounds, without the allowance
  bare.substitution_tv = 0.0;
  for (double delta : queries.deltas) {
    const double eps = bare.epsilon_upper(delta);
    if (!std::isfinite(eps) || !(eps > 0.0)) return false;
    if (!(copy.epsilon_upper(delta) - eps <= share * eps)) return false;
    if (!(bare.epsilon_lower(delta) - copy.epsilon_lower(delta) <= share * eps)) return false;
  }
  return true;
}

// From kPerQueryCompositionFrom releases the default composes a family of one pair (one shift, one sign) as
// account_events composes a mechanism: by one FFT power (fft_power.hpp) of the single release discretised with the loss
// step chosen for the queries (loss_step_choice.hpp). Below it, square-and-multiply at the requested step, as the
// pinned certificates (at most 500 releases) were made: there the squarings are few and the discretisation's bracket
// narrow.
// The family's n-fold composition with the default's choices, the discretisation's bracket aimed at `share` of the
// tolerance; bounds.options says which were made.
PairBounds composed(const PairFamily& family, int64_t n, AccountantOptions options, const AccountingQueries& queries,
                    double share = 1.0) {
  PairBounds single = single_release_bounds(family, options);
  if (!queries.empty() && options.several_pairs == SeveralPairsMethod::kAuto && n >= kPerQueryCompositionFrom &&
      family.pairs.size() == 1) {
    options.fft_power = true;
    LossStepChoice choice =
        choose_loss_step(std::move(single), n, queries, options, share * options.adaptive_skip_width,
                         [&](const AccountantOptions& o) { return single_release_bounds(family, o); });
    single = std::move(choice.single);
    options = choice.options;
    single.context.options = options;
    single.context.loss_step_wanted = choice.loss_step_wanted;
  }
  return compose_bounds(single, n, options, queries);
}

}  // namespace

bool composed_per_query(const PairFamily& family, int64_t n, const AccountantOptions& options) {
  return options.several_pairs == SeveralPairsMethod::kAuto && n >= kPerQueryCompositionFrom &&
         (family.pairs.size() == 1 || family.rounding_symmetric_copy);
}

PairBounds account(const PairFamily& family, int64_t n, const AccountantOptions& options,
                   const AccountingQueries& queries) {
  // A table symmetric up to rounding: its exact copy (one shift, one sign) where the difference costs the queries at
  // most a quarter of the tolerance; the table itself otherwise, or when no queries say what is measurable.
  if (family.rounding_symmetric_copy && !queries.empty() && options.several_pairs == SeveralPairsMethod::kAuto) {
    // The copy's allowance may take a quarter of the tolerance on each side: its discretisation aims at the half left.
    PairBounds copy = composed(*family.rounding_symmetric_copy, n, options, queries, 0.5);
    copy.context.family = family.rounding_symmetric_copy;
    copy.context.composed_for_queries = true;
    if (copy_allowance_within_tolerance(copy, queries, options.adaptive_skip_width)) return copy;
  }
  PairBounds result = composed(family, n, options, queries);
  result.context.family = std::make_shared<const PairFamily>(family);
  result.context.composed_for_queries = !queries.empty();
  return result;
}

}  // namespace noiselearn
