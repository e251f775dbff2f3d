#include "accounting/refinement.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <tuple>
#include <vector>

#include "accounting/adaptive_blocks.hpp"
#include "accounting/adaptive_decision.hpp"
#include "accounting/exponential_tilt.hpp"
#include "accounting/pair_accountant.hpp"
#include "accounting/scenario_composition.hpp"

namespace noiselearn {

namespace {

// The same with one tilt for both directions: the mixed-sign scenarios compose releases up with releases down, and
// a composition needs one tilt for its factors (composition.cpp). Any lambda >= 0 gives the same PLD in exact
// arithmetic (the tilt only moves where floating-point error lands; each factor's error is tracked with its tilt), so
// the mean of the two Chernoff-optimal tilts is used. Before this, one-sided tables at small delta (T = 1000,
// delta = 1e-8) failed with "cannot compose PLDs with different tilts".
DirectionalPLDs tilted_in_common_for(const DirectionalPLDs& single, int64_t n, double epsilon) {
  DirectionalPLDs result = single;
  double lambda = chernoff_tilt_for_epsilon(result.first_to_second, n, epsilon);
  if (result.second_to_first) lambda = 0.5 * (lambda + chernoff_tilt_for_epsilon(*result.second_to_first, n, epsilon));
  apply_tilt(result.first_to_second, lambda);
  if (result.second_to_first) apply_tilt(*result.second_to_first, lambda);
  return result;
}

bool is_tilted(const DirectionalPLDs& d) {
  return d.first_to_second.tilt.lambda > 0.0 || (d.second_to_first && d.second_to_first->tilt.lambda > 0.0);
}

// The bodies of the accountant's refinements, on the bounds being made (refined_for_epsilon and its kin return them).
// Whether some query's bracket is wider than `width` relative to its upper end.
bool bracket_wider_than(const PairBounds& b, const AccountingQueries& queries, double width) {
  for (double delta : queries.deltas) {
    const double high = b.epsilon_upper(delta), low = b.epsilon_lower(delta);
    if (!(high - low <= width * high)) return true;
  }
  for (double epsilon : queries.epsilons) {
    const double high = b.delta_upper(epsilon), low = b.delta_lower(epsilon);
    if (!(high - low <= width * high)) return true;
  }
  return false;
}

void refine_for_epsilon(PairBounds& b, double epsilon, double tail_mass = 0.0) {
  if (!b.context.single_release || !b.context.options.tilted_refinement || !std::isfinite(epsilon)) return;
  const double tail = tail_mass > 0.0 ? std::min(tail_mass, b.context.options.tail_mass) : b.context.options.tail_mass;
  for (const auto& t : b.alternatives.tilted)
    if (std::abs(t.target_epsilon - epsilon) <= 1e-3 * std::max(1.0, std::abs(epsilon)) && t.tail_mass <= tail) return;
  AccountantOptions refined = b.context.options;
  refined.tail_mass = tail;
  // The single release's own truncation (its tails moved to infinity) is composed too, about n times its mass: with a
  // smaller tail mass, discretise the release again.
  if (tail < b.context.options.tail_mass && (b.context.family || b.context.rediscretise) &&
      (!b.context.fine_single_release || b.context.fine_single_release->context.options.tail_mass != tail)) {
    PairBounds fine =
        b.context.family ? single_release_bounds(*b.context.family, refined) : b.context.rediscretise(refined);
    fine.context.options = refined;
    b.context.fine_single_release = std::make_shared<const PairBounds>(std::move(fine));
  }
  const PairBounds& single = tail < b.context.options.tail_mass && b.context.fine_single_release
                                 ? *b.context.fine_single_release
                                 : *b.context.single_release;
  TiltedComposition alternative;
  alternative.target_epsilon = epsilon;
  alternative.tail_mass = tail;
  // The exact adaptive programme in blocks composes the blocks' dominating PLDs by FFT: tilt that composition too.
  for (auto& curve : b.alternatives.adaptive) add_tilted_blocks(curve, epsilon, refined);
  const DirectionalPLDs upper_single = tilted_for(single.upper, b.compositions, epsilon);
  if (!is_tilted(upper_single)) return;  // eps at or below the mean loss: tilting does not help
  std::vector<DirectionalPLDs> lower_singles;
  for (const auto& scenario : single.lower) lower_singles.push_back(tilted_for(scenario, b.compositions, epsilon));
  std::tie(alternative.upper, alternative.lower) =
      compose_scenarios(upper_single, lower_singles, b.compositions, refined);
  if (single.candidates.mixed_sign_lower && !b.whole_adaptive_programme())
    for (auto& scenario :
         mixed_sign_scenarios(tilted_in_common_for(*single.candidates.mixed_sign_lower, b.compositions, epsilon),
                              b.compositions, refined))
      alternative.lower.push_back(std::move(scenario));
  b.alternatives.tilted.push_back(std::move(alternative));
}

void refine_for_delta(PairBounds& b, double delta) {
  if (!b.context.single_release || !b.context.options.tilted_refinement) return;
  double current = b.epsilon_upper(delta);
  if (!std::isfinite(current)) {
    // The untilted upper bound never reaches delta. If the distinguishing events alone exceed delta, nothing can;
    // otherwise aim at the lower bound of eps(delta) when there is one (the truth is above it, usually close), else
    // at the Chernoff estimate of eps(delta) for the dominating single release (above the truth, often far).
    if (std::max(b.composed_infinity_mass.first, b.composed_infinity_mass.second) >= delta) return;
    const PairBounds& single = *b.context.single_release;
    double target = chernoff_epsilon(single.upper.first_to_second, b.compositions, delta);
    if (single.upper.second_to_first)
      target = std::max(target, chernoff_epsilon(*single.upper.second_to_first, b.compositions, delta));
    const double lower_end = b.epsilon_lower(delta);
    if (std::isfinite(lower_end) && lower_end > 0.0) target = std::min(target, lower_end);
    refine_for_epsilon(b, target, b.truncated_mass() > 1e-3 * delta ? b.tail_mass_for_delta(delta) : 0.0);
    current = b.epsilon_upper(delta);
  }
  // A tilt is tightest at the epsilon it was made for: while the allowance (or the mass the truncations moved to
  // infinity, then with a smaller tail mass) still dominates at the current upper end, tilt again for it (each
  // tilted composition is one more pass; refine_for_epsilon skips near-duplicates).
  for (int round = 0; round < 3 && std::isfinite(current); ++round) {
    const bool truncation = b.truncation_dominates(current);
    if (!truncation && !b.allowance_dominates(current)) break;
    const size_t before = b.alternatives.tilted.size();
    refine_for_epsilon(b, current, truncation ? b.tail_mass_for_delta(delta) : 0.0);
    if (b.alternatives.tilted.size() == before) break;
    current = b.epsilon_upper(delta);
  }
}

void adapt_to_queries(PairBounds& b, const AccountingQueries& queries) {
  if (!b.alternatives.adaptive.empty() || !b.context.single_release ||
      b.context.single_release->candidates.adaptive.empty() || queries.empty() ||
      b.context.options.several_pairs != SeveralPairsMethod::kAuto)
    return;
  run_adaptive_programme(b, b.context.single_release->candidates.adaptive, b.compositions, b.context.options, queries);
  // Tilted compositions made before the programme ran hold no tilted blocks of it: make them again.
  if (!b.alternatives.adaptive.empty() && !b.alternatives.tilted.empty()) {
    std::vector<TiltedComposition> previous = std::move(b.alternatives.tilted);
    b.alternatives.tilted.clear();
    for (const auto& t : previous)
      refine_for_epsilon(b, t.target_epsilon, t.tail_mass < b.context.options.tail_mass ? t.tail_mass : 0.0);
  }
}

}  // namespace

PairBounds refined_for_epsilon(PairBounds bounds, double epsilon, double tail_mass) {
  refine_for_epsilon(bounds, epsilon, tail_mass);
  return bounds;
}

PairBounds refined_for_delta(PairBounds bounds, double delta) {
  refine_for_delta(bounds, delta);
  return bounds;
}

PairBounds with_bucketed_tests(PairBounds bounds, const AccountingQueries& queries, bool known_wide) {
  const std::shared_ptr<const PairBounds> single = bounds.context.single_release;
  if (!single || single->alternatives.bucketed.empty() || bounds.compositions < 2) return bounds;
  // One tilted composition per wide query, tilted where its answer lies: at eps for a delta query, between the
  // bracket's ends for an epsilon query (unless one made for a nearby epsilon is there).
  std::vector<double> targets;
  const double width = bounds.context.options.adaptive_skip_width;
  for (double delta : queries.deltas)
    if (known_wide || bracket_wider_than(bounds, AccountingQueries{{}, {delta}}, width)) {
      const double high = bounds.epsilon_upper(delta), low = bounds.epsilon_lower(delta);
      targets.push_back(std::isfinite(high) ? 0.5 * (low + high) : low);
    }
  for (double epsilon : queries.epsilons)
    if (known_wide || bracket_wider_than(bounds, AccountingQueries{{epsilon}, {}}, width)) targets.push_back(epsilon);
  for (double target : targets) {
    bool near = false;
    for (const auto& t : bounds.alternatives.bucketed)
      near = near || std::abs(t.tilted_for - target) <= 1e-3 * std::max(1.0, target);
    if (near) continue;
    for (const auto& test : single->alternatives.bucketed)
      if (auto composed = composed_bucketed_test(test, bounds.compositions, bounds.context.options, target))
        bounds.alternatives.bucketed.push_back(std::move(*composed));
  }
  return bounds;
}

PairBounds adapted_to_queries(PairBounds bounds, const AccountingQueries& queries) {
  if (bounds.context.family && !bounds.context.composed_for_queries && !queries.empty() &&
      composed_per_query(*bounds.context.family, bounds.compositions, bounds.context.options))
    return account(*bounds.context.family, bounds.compositions, bounds.context.options, queries);
  adapt_to_queries(bounds, queries);
  return bounds;
}

}  // namespace noiselearn
