#include "accounting/pair_accountant.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <tuple>

#include "accounting/accountant_threads.hpp"
#include "accounting/adaptive_blocks.hpp"
#include "accounting/composition.hpp"
#include "accounting/exponential_tilt.hpp"
#include "accounting/loss_discretisation.hpp"
#include "accounting/profile_envelope.hpp"
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

// The upper scenario and every lower one composed n times: every direction of every scenario is a job of its own
// (run_jobs: on the accountant's threads; each composition is the same whatever their number).
std::pair<DirectionalPLDs, std::vector<DirectionalPLDs>> compose_scenarios(const DirectionalPLDs& upper,
                                                                           const std::vector<DirectionalPLDs>& lowers,
                                                                           int64_t n, const AccountantOptions& options) {
  std::pair<DirectionalPLDs, std::vector<DirectionalPLDs>> result;
  result.first.name = upper.name;
  result.second.resize(lowers.size());
  std::vector<std::function<void()>> jobs;
  auto add = [&](const DirectionalPLDs& in, DirectionalPLDs& out) {
    out.name = in.name;
    jobs.emplace_back([&in, &out, n, &options] { out.first_to_second = self_compose(in.first_to_second, n, options); });
    if (in.second_to_first) {
      out.second_to_first.emplace();
      jobs.emplace_back([&in, &out, n, &options] { *out.second_to_first = self_compose(*in.second_to_first, n, options); });
    }
  };
  add(upper, result.first);
  for (size_t i = 0; i < lowers.size(); ++i) add(lowers[i], result.second[i]);
  run_jobs(jobs);
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

}  // namespace

PairBounds single_release_bounds(const PairFamily& family, const AccountantOptions& options) {
  options.validate();
  if (family.pairs.empty()) throw InputError("no dominating pair to account");
  PairBounds bounds;
  bounds.shift_justification = family.justification;
  bounds.neighbours = family.neighbours;
  bounds.substitution_tv = family.substitution_tv;
  const bool additive = family.kind == PairKind::kAdditive;
  const bool any_sequence = family.neighbours == NeighbourRelation::kAnySequence;
  std::vector<DirectionalPLDs> singles;
  for (const auto& pair : family.pairs) singles.push_back(discretise_pair(pair, BoundKind::kUpper, options));
  // forward[i] = A||B of pair i; backward[i] = B||A (identical to forward for a pair that is its own mirror).
  std::vector<PrivacyLossDistribution> forward, backward;
  bool all_own_mirror = true;
  for (const auto& s : singles) {
    forward.push_back(s.first_to_second);
    backward.push_back(s.direction(true));
    all_own_mirror = all_own_mirror && !s.second_to_first;
  }
  const size_t count = singles.size();
  std::vector<int64_t> attained(count, 0);
  const std::string shifts = family.single_shift ? fmt::format("shift {} cells", family.sensitivity_cells)
                                                 : fmt::format("shifts 1..{} cells", family.sensitivity_cells);
  if (additive && any_sequence) {
    // One envelope over every shift, up and down.
    std::vector<PrivacyLossDistribution> all = forward;
    if (!all_own_mirror) all.insert(all.end(), backward.begin(), backward.end());
    std::vector<int64_t> attained_all;
    bounds.upper.first_to_second = envelope_of(all, attained_all, options);
    for (size_t i = 0; i < count; ++i)
      attained[i] = attained_all[i] + (all_own_mirror ? 0 : attained_all[i + count]);
    bounds.upper.name = all.size() == 1 ? family.pairs.front().description
                                        : fmt::format("envelope of {}, up and down", shifts);
  } else {
    // Two directions, each enveloped over its pairs (for a mixture, over both signs of the shift).
    std::vector<int64_t> attained_forward, attained_backward;
    bounds.upper.first_to_second = envelope_of(forward, attained_forward, options);
    if (!all_own_mirror) bounds.upper.second_to_first = envelope_of(backward, attained_backward, options);
    for (size_t i = 0; i < count; ++i)
      attained[i] = attained_forward[i] + (all_own_mirror ? 0 : attained_backward[i]);
    bounds.upper.name = count == 1 ? family.pairs.front().description : fmt::format("envelope of {}", shifts);
  }
  bounds.pair_description = count == 1 ? family.pairs.front().description
                                       : fmt::format("{} ({})", family.pairs.back().description,
                                                     family.single_shift ? "both signs" : "every shift 1.." +
                                                         std::to_string(family.sensitivity_cells) + " cells");
  // Lower bound: the (at most four) pairs that attain the envelope at the most grid points, always including
  // the maximal shift (the last additive pair; for a mixture the last two are the maximal shift's two signs).
  std::vector<size_t> order(count);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return attained[x] > attained[y]; });
  const size_t maximal = additive || family.mirror_symmetric ? count - 1 : count - 2;
  std::vector<size_t> chosen{maximal};
  for (size_t i : order) {
    if (chosen.size() >= 4) break;
    if (attained[i] > 0 && std::find(chosen.begin(), chosen.end(), i) == chosen.end()) chosen.push_back(i);
  }
  for (size_t i : chosen) bounds.lower.push_back(discretise_pair(family.pairs[i], BoundKind::kLower, options));
  if (additive && any_sequence && !all_own_mirror) {
    DirectionalPLDs mixed = bounds.lower.front();
    if (!mixed.second_to_first) mixed.second_to_first = mixed.first_to_second;
    bounds.mixed_sign_lower = std::move(mixed);
  }
  // Candidates of the exact adaptive programme: every pair's pessimistic PLD in each direction the upper bound
  // covers, less those another candidate dominates (profile_envelope.hpp), the ones that attain the envelope most
  // often tried as dominators first; the optimistic PLDs of the same pairs for the lower run.
  auto adaptive_candidates = [&](const std::vector<std::pair<size_t, bool>>& pairs_and_directions,
                                 const std::vector<int64_t>& attained_counts) {
    std::vector<PrivacyLossDistribution> uppers;
    for (const auto& [i, reverse] : pairs_and_directions) uppers.push_back(singles[i].direction(reverse));
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
      releases.lower.push_back(discretise(reverse ? privacy_loss_atoms(b, a) : privacy_loss_atoms(a, b), BoundKind::kLower, options));
    }
    return releases;
  };
  if (additive && any_sequence) {
    std::vector<std::pair<size_t, bool>> all;
    std::vector<int64_t> counts;
    for (size_t i = 0; i < count; ++i) all.emplace_back(i, false);
    if (!all_own_mirror)
      for (size_t i = 0; i < count; ++i) all.emplace_back(i, true);
    counts.assign(all.size(), 0);
    // attained[] merged both directions; any order of preference is sound, this one is a good guess.
    for (size_t x = 0; x < all.size(); ++x) counts[x] = attained[all[x].first];
    if (all.size() > 1) {
      AdaptiveReleases releases = adaptive_candidates(all, counts);
      if (releases.upper.size() > 1) bounds.adaptive_single.push_back(std::move(releases));
    }
  } else if (count > 1) {
    std::vector<std::pair<size_t, bool>> forward_pairs, backward_pairs;
    for (size_t i = 0; i < count; ++i) {
      forward_pairs.emplace_back(i, false);
      backward_pairs.emplace_back(i, true);
    }
    const std::vector<int64_t> counts(attained.begin(), attained.end());
    AdaptiveReleases first = adaptive_candidates(forward_pairs, counts);
    AdaptiveReleases second = all_own_mirror ? AdaptiveReleases{} : adaptive_candidates(backward_pairs, counts);
    if (first.upper.size() > 1 || second.upper.size() > 1) {
      bounds.adaptive_single.push_back(std::move(first));
      if (!all_own_mirror) bounds.adaptive_single.push_back(std::move(second));
    }
  }
  // Distinguishing events only (the upper bound's infinity mass also holds the truncated top tail), worst pair.
  for (const auto& pair : family.pairs) {
    const std::vector<double> a = pair.all_a(), b = pair.all_b();
    bounds.single_release_infinity_mass_first =
        std::max(bounds.single_release_infinity_mass_first, privacy_loss_atoms(a, b).infinity_mass);
    bounds.single_release_infinity_mass_second =
        std::max(bounds.single_release_infinity_mass_second, privacy_loss_atoms(b, a).infinity_mass);
  }
  bounds.composed_infinity_mass_first = bounds.single_release_infinity_mass_first;
  bounds.composed_infinity_mass_second = bounds.single_release_infinity_mass_second;
  return bounds;
}

namespace {

// The per-release omega of each direction as the composition sees it: an upper bound without a separate B||A
// (a mirror pair, or the envelope of both signs) lets every release take the worse of the two.
std::pair<double, double> composition_omegas(const PairBounds& single) {
  const double first = single.single_release_infinity_mass_first, second = single.single_release_infinity_mass_second;
  if (single.upper.second_to_first) return {first, second};
  return {std::max(first, second), std::max(first, second)};
}

// log(1 - omega)^n, kept in log space so that a tiny omega composed many times is not lost.
double log_survival(double omega, int64_t n) { return static_cast<double>(n) * std::log1p(-omega); }

// Scenarios with a releases shifted up and n - a down (a = n/4, n/2; their mirror images n - a are the second
// direction): every such sequence can happen under the any-sequence relation, so each is a lower bound.
std::vector<DirectionalPLDs> mixed_sign_scenarios(const DirectionalPLDs& single, int64_t n, const AccountantOptions& options) {
  std::vector<DirectionalPLDs> scenarios;
  const PrivacyLossDistribution& up = single.first_to_second;
  const PrivacyLossDistribution& down = *single.second_to_first;
  std::map<std::pair<bool, int64_t>, PrivacyLossDistribution> powers;
  auto power = [&](bool is_up, int64_t count) -> const PrivacyLossDistribution& {
    auto key = std::make_pair(is_up, count);
    auto found = powers.find(key);
    if (found == powers.end()) found = powers.emplace(key, self_compose(is_up ? up : down, count, options)).first;
    return found->second;
  };
  std::vector<int64_t> splits;
  for (int64_t a : {n / 4, n / 2})
    if (a >= 1 && a <= n - 1 && std::find(splits.begin(), splits.end(), a) == splits.end()) splits.push_back(a);
  for (int64_t a : splits) {
    DirectionalPLDs scenario;
    scenario.name = fmt::format("{} releases up, {} down", a, n - a);
    scenario.first_to_second = compose(power(true, a), power(false, n - a), options);
    scenario.second_to_first = compose(power(true, n - a), power(false, a), options);
    scenarios.push_back(std::move(scenario));
  }
  return scenarios;
}

}  // namespace

namespace {

// A copy of single-release PLDs tilted for eps after n compositions, each with its own Chernoff-optimal tilt.
DirectionalPLDs tilted_for(const DirectionalPLDs& single, int64_t n, double epsilon) {
  DirectionalPLDs result = single;
  apply_tilt(result.first_to_second, chernoff_tilt_for_epsilon(result.first_to_second, n, epsilon));
  if (result.second_to_first)
    apply_tilt(*result.second_to_first, chernoff_tilt_for_epsilon(*result.second_to_first, n, epsilon));
  return result;
}

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
  return d.first_to_second.tilt > 0.0 || (d.second_to_first && d.second_to_first->tilt > 0.0);
}

}  // namespace

namespace {

// The bodies of the accountant's refinements, on the bounds being made (refined_for_epsilon and its kin return them).
void refine_for_epsilon(PairBounds& b, double epsilon, double tail_mass = 0.0) {
  if (!b.single_release || !b.options.tilted_refinement || !std::isfinite(epsilon)) return;
  const double tail = tail_mass > 0.0 ? std::min(tail_mass, b.options.tail_mass) : b.options.tail_mass;
  for (const auto& t : b.tilted)
    if (std::abs(t.target_epsilon - epsilon) <= 1e-3 * std::max(1.0, std::abs(epsilon)) && t.tail_mass <= tail) return;
  AccountantOptions refined = b.options;
  refined.tail_mass = tail;
  // The single release's own truncation (its tails moved to infinity) is composed too, about n times its mass: with a
  // smaller tail mass, discretise the release again.
  if (tail < b.options.tail_mass && (b.family || b.rediscretise) &&
      (!b.fine_single_release || b.fine_single_release->options.tail_mass != tail)) {
    PairBounds fine = b.family ? single_release_bounds(*b.family, refined) : b.rediscretise(refined);
    fine.options = refined;
    b.fine_single_release = std::make_shared<const PairBounds>(std::move(fine));
  }
  const PairBounds& single = tail < b.options.tail_mass && b.fine_single_release ? *b.fine_single_release : *b.single_release;
  TiltedComposition alternative;
  alternative.target_epsilon = epsilon;
  alternative.tail_mass = tail;
  // The exact adaptive programme in blocks composes the blocks' dominating PLDs by FFT: tilt that composition too.
  for (auto& curve : b.adaptive) add_tilted_blocks(curve, epsilon, refined);
  const DirectionalPLDs upper_single = tilted_for(single.upper, b.compositions, epsilon);
  if (!is_tilted(upper_single)) return;  // eps at or below the mean loss: tilting does not help
  std::vector<DirectionalPLDs> lower_singles;
  for (const auto& scenario : single.lower) lower_singles.push_back(tilted_for(scenario, b.compositions, epsilon));
  std::tie(alternative.upper, alternative.lower) = compose_scenarios(upper_single, lower_singles, b.compositions, refined);
  if (single.mixed_sign_lower && !b.whole_adaptive_programme())
    for (auto& scenario : mixed_sign_scenarios(tilted_in_common_for(*single.mixed_sign_lower, b.compositions, epsilon), b.compositions, refined))
      alternative.lower.push_back(std::move(scenario));
  b.tilted.push_back(std::move(alternative));
}

void refine_for_delta(PairBounds& b, double delta) {
  if (!b.single_release || !b.options.tilted_refinement) return;
  double current = b.epsilon_upper(delta);
  if (!std::isfinite(current)) {
    // The untilted upper bound never reaches delta. If the distinguishing events alone exceed delta, nothing can;
    // otherwise aim at the lower bound of eps(delta) when there is one (the truth is above it, usually close), else
    // at the Chernoff estimate of eps(delta) for the dominating single release (above the truth, often far).
    if (std::max(b.composed_infinity_mass_first, b.composed_infinity_mass_second) >= delta) return;
    const PairBounds& single = *b.single_release;
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
    const size_t before = b.tilted.size();
    refine_for_epsilon(b, current, truncation ? b.tail_mass_for_delta(delta) : 0.0);
    if (b.tilted.size() == before) break;
    current = b.epsilon_upper(delta);
  }
}

}  // namespace

namespace {

// Relative width of the epsilon bracket at delta: 0 when both ends are infinite (delta below the distinguishing
// events, nothing to narrow), 1 when only the upper end is.
double relative_epsilon_width(const PairBounds& bounds, double delta) {
  const double upper = bounds.epsilon_upper(delta), lower = bounds.epsilon_lower(delta);
  if (!std::isfinite(upper)) return std::isfinite(lower) ? 1.0 : 0.0;
  return upper > 0.0 ? (upper - lower) / upper : 0.0;
}

// The widest relative epsilon bracket at delta = omega + 1e-3, 1e-6 and 1e-10 (omega the composed distinguishing-
// event mass, below which no epsilon exists).
double widest_epsilon_bracket(const PairBounds& bounds) {
  const double omega = std::max(bounds.composed_infinity_mass_first, bounds.composed_infinity_mass_second);
  double width = 0.0;
  for (double d : {1e-3, 1e-6, 1e-10})
    if (omega + d < 1.0) width = std::max(width, relative_epsilon_width(bounds, omega + d));
  return width;
}

// The widest relative bracket at the queries that the adaptive programme could narrow (not one the floating-point
// allowance or the truncations make), and the query it is at ("epsilon 1", "delta 1e-05").
std::pair<double, std::string> widest_query_bracket(const PairBounds& bounds, const AccountingQueries& queries) {
  std::pair<double, std::string> widest{0.0, ""};
  const auto consider = [&](double width, std::string query) {
    if (width > widest.first) widest = {width, std::move(query)};
  };
  for (double eps : queries.epsilons) {
    const double upper = bounds.delta_upper(eps), lower = bounds.delta_lower(eps);
    if (!(upper > 0.0) || bounds.allowance_dominates(eps) || bounds.truncation_dominates(eps)) continue;
    consider((upper - lower) / upper, fmt::format("epsilon {:g}", eps));
  }
  for (double delta : queries.deltas) {
    const double upper = bounds.epsilon_upper(delta);
    if (std::isfinite(upper) && (bounds.allowance_dominates(upper) || bounds.truncation_dominates(upper))) continue;
    consider(relative_epsilon_width(bounds, delta), fmt::format("delta {:g}", delta));
  }
  return widest;
}

// Runs the exact adaptive programme on `candidates` (per direction) for n releases, or says why not.
void run_adaptive_programme(PairBounds& bounds, const std::vector<AdaptiveReleases>& candidates, int64_t n,
                            const AccountantOptions& options, const AccountingQueries& queries) {
  bounds.adaptive.clear();
  bounds.several_pairs_note.clear();
  if (candidates.empty()) return;
  if (options.several_pairs == SeveralPairsMethod::kEnvelope) {
    bounds.several_pairs_note = "profile envelope (the adaptive programme is off: several-pairs method 'envelope')";
    return;
  }
  std::vector<std::vector<AdaptiveReleases>> runs;
  double cost = 0.0;
  for (const auto& c : candidates) {
    AdaptiveReleases releases = c;
    releases.count = n;
    runs.push_back({std::move(releases)});
    cost += adaptive_composition_cost(runs.back());
  }
  std::string reason;  // why the programme runs under auto: the query whose bracket it may narrow
  if (options.several_pairs == SeveralPairsMethod::kAuto) {
    if (queries.empty()) {
      if (widest_epsilon_bracket(bounds) <= options.adaptive_skip_width) {
        bounds.several_pairs_note = fmt::format(
            "profile envelope (its epsilon bracket is within {:g} relative at delta 1e-3, 1e-6 and 1e-10 above the "
            "distinguishing events; the adaptive programme would not narrow it)", options.adaptive_skip_width);
        return;
      }
    } else {
      const auto [width, query] = widest_query_bracket(bounds, queries);
      if (width <= options.adaptive_skip_width) {
        bounds.several_pairs_note = fmt::format(
            "profile envelope (its bracket is within {:g} relative at every query, or made by the floating-point "
            "allowance; the adaptive programme would not narrow it)", options.adaptive_skip_width);
        return;
      }
      reason = fmt::format("; run because the envelope's bracket at {} is {:.2g} relative", query, width);
    }
    if (cost > options.adaptive_budget) {
      // Too costly for all n releases at once: blocks as long as the budget allows (adaptive_blocks.hpp).
      const double per_run = options.adaptive_block_budget / static_cast<double>(runs.size());
      int64_t block = n;
      for (const auto& run : runs) block = std::min(block, largest_block_within(run.front(), per_run));
      if (block < 2) {
        bounds.several_pairs_note = fmt::format(
            "profile envelope (the adaptive programme's estimated cost {:.3g} exceeds the budget {:.3g}, and the block "
            "budget {:.3g} even in blocks of 2 releases; raise certification.adaptive_block_budget or coarsen the loss "
            "step)", cost, options.adaptive_budget, options.adaptive_block_budget);
        return;
      }
      for (const auto& run : runs) bounds.adaptive.push_back(adaptive_block_composition(run.front(), block, options));
      bounds.several_pairs_note = fmt::format("{} (the whole programme's estimated cost {:.3g} exceeds the budget {:.3g}; "
                                              "blocks within the block budget {:.3g}), beside the profile envelope{}",
                                              bounds.adaptive.front().describe(), cost, options.adaptive_budget,
                                              options.adaptive_block_budget, reason);
      return;
    }
  }
  for (const auto& run : runs) bounds.adaptive.push_back(adaptive_composition(run, options));
  bounds.several_pairs_note = bounds.adaptive.front().describe() + ", beside the profile envelope" + reason;
}

// A heterogeneous composition (parts of n_i releases of different tables): each part with several candidate pairs
// gets its exact adaptive programme (whole within the budget, or in blocks within the block budget,
// adaptive_blocks.hpp), and the convex hull
// of its adaptive profile as a dominating pair; the parts' dominating pairs (their envelopes for parts without
// candidates) are composed. Pairs dominating the parts of an adaptive sequence compose (Zhu, Dong and Wang 2022,
// Thm. 10), and so do the f-DP guarantees of interactive mechanisms run concurrently, in any interleaving (Vadhan and
// Zhang, "Concurrent composition theorems for differential privacy", STOC 2023): the bound holds in any order of
// the releases, like the envelope's. An upper bound only; the lower bound stays the fixed sequences.
void heterogeneous_adaptive_upper(PairBounds& result, const std::vector<std::pair<PairBounds, int64_t>>& parts,
                                  const AccountantOptions& options) {
  bool any_candidates = false;
  for (const auto& [single, count] : parts) any_candidates = any_candidates || !single.adaptive_single.empty();
  if (!any_candidates) return;
  const std::string envelope_note = "profile envelope of each part, which holds in any order of the releases";
  if (options.several_pairs == SeveralPairsMethod::kEnvelope) {
    result.several_pairs_note = envelope_note + " (the adaptive programme is off: several-pairs method 'envelope')";
    return;
  }
  if (options.several_pairs == SeveralPairsMethod::kAuto && widest_epsilon_bracket(result) <= options.adaptive_skip_width) {
    result.several_pairs_note = fmt::format("{} (its epsilon bracket is within {:g} relative; the adaptive programme "
                                            "would not narrow it)", envelope_note, options.adaptive_skip_width);
    return;
  }
  // Cost of every part's whole programme; over the budget (auto), each part in blocks within its share of the block
  // budget.
  double cost = 0.0;
  size_t runs = 0;
  for (size_t i = 0; i < parts.size(); ++i)
    for (const auto& c : parts[i].first.adaptive_single) {
      AdaptiveReleases releases = c;
      releases.count = parts[i].second;
      cost += adaptive_composition_cost({releases});
      ++runs;
    }
  const bool blocks = options.several_pairs == SeveralPairsMethod::kAuto && cost > options.adaptive_budget;
  const bool two_directions = static_cast<bool>(result.upper.second_to_first);
  // Per part and direction: the hull PLD of the part's releases (count 1), or its envelope PLD (count n_i).
  std::vector<std::vector<std::pair<PrivacyLossDistribution, int64_t>>> factors(two_directions ? 2 : 1);
  std::vector<std::string> how;
  for (size_t i = 0; i < parts.size(); ++i) {
    const PairBounds& single = parts[i].first;
    const int64_t n = parts[i].second;
    int64_t block = n;
    if (blocks && !single.adaptive_single.empty())
      for (const auto& c : single.adaptive_single) {
        AdaptiveReleases releases = c;
        releases.count = n;
        block = std::min(block, largest_block_within(releases, options.adaptive_block_budget / static_cast<double>(runs)));
      }
    if (single.adaptive_single.empty() || block < std::min<int64_t>(2, n)) {
      for (size_t r = 0; r < factors.size(); ++r) factors[r].emplace_back(single.upper.direction(r == 1), n);
      how.push_back(fmt::format("part {}: {}", i + 1, single.adaptive_single.empty() ? "one candidate pair" : "envelope (over the budget)"));
      continue;
    }
    std::vector<AdaptiveCurves> curves;
    for (const auto& c : single.adaptive_single) {
      AdaptiveReleases releases = c;
      releases.count = n;
      curves.push_back(adaptive_block_composition(releases, block, options));
    }
    // One run covers both directions when the part's candidates hold every pair in both (the `any` relation).
    for (size_t r = 0; r < factors.size(); ++r) factors[r].emplace_back(*curves[std::min(r, curves.size() - 1)].blocks_composed, 1);
    how.push_back(block == n ? fmt::format("part {}: the whole programme of {} release{}", i + 1, n, n == 1 ? "" : "s")
                             : fmt::format("part {}: blocks of {} releases", i + 1, block));
  }
  result.adaptive.clear();
  for (size_t r = 0; r < factors.size(); ++r) {
    AdaptiveCurves curve;
    curve.loss_step = factors[r].front().first.loss_step;
    curve.compositions = result.compositions;
    curve.blocks_composed = std::make_shared<const PrivacyLossDistribution>(compose_heterogeneous(factors[r], options));
    curve.description = fmt::format("exact adaptive programme per part ({}), each part's adaptive profile hull as a "
                                    "dominating pair, the parts composed (in any order of the releases; upper bound only)",
                                    fmt::join(how, "; "));
    result.adaptive.push_back(std::move(curve));
  }
  result.several_pairs_note = result.adaptive.front().describe() + ", beside the profile envelope";
}

}  // namespace

PairBounds compose_bounds(const PairBounds& single, int64_t n, const AccountantOptions& options,
                          const AccountingQueries& queries) {
  PairBounds result = single;
  result.single_release = std::make_shared<const PairBounds>(single);
  result.options = options;
  result.compositions = n;
  result.substitution_tv = single.substitution_tv * static_cast<double>(n) * (1.0 + 1e-12);
  const auto [first, second] = composition_omegas(single);
  result.composed_infinity_mass_first = -std::expm1(log_survival(first, n));
  result.composed_infinity_mass_second = -std::expm1(log_survival(second, n));
  std::tie(result.upper, result.lower) = compose_scenarios(single.upper, single.lower, n, options);
  result.mixed_sign_lower.reset();
  run_adaptive_programme(result, single.adaptive_single, n, options, queries);
  // The sequences that mix releases up and down: only when the whole adaptive programme did not run. Its lower run
  // bounds the worst adaptive sequence, which is at least the worst fixed one, from below (for the 401-point HRDP
  // optimum at T = 500 these compositions were a third of the certificate's time and never the better lower bound).
  if (single.mixed_sign_lower && !result.whole_adaptive_programme())
    for (auto& scenario : mixed_sign_scenarios(*single.mixed_sign_lower, n, options)) result.lower.push_back(std::move(scenario));
  return result;
}

namespace {

void adapt_to_queries(PairBounds& b, const AccountingQueries& queries) {
  if (!b.adaptive.empty() || !b.single_release || b.single_release->adaptive_single.empty() || queries.empty() ||
      b.options.several_pairs != SeveralPairsMethod::kAuto)
    return;
  run_adaptive_programme(b, b.single_release->adaptive_single, b.compositions, b.options, queries);
  // Tilted compositions made before the programme ran hold no tilted blocks of it: make them again.
  if (!b.adaptive.empty() && !b.tilted.empty()) {
    std::vector<TiltedComposition> previous = std::move(b.tilted);
    b.tilted.clear();
    for (const auto& t : previous) refine_for_epsilon(b, t.target_epsilon, t.tail_mass < b.options.tail_mass ? t.tail_mass : 0.0);
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

PairBounds adapted_to_queries(PairBounds bounds, const AccountingQueries& queries) {
  adapt_to_queries(bounds, queries);
  return bounds;
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

}  // namespace

PairBounds account(const PairFamily& family, int64_t n, const AccountantOptions& options, const AccountingQueries& queries) {
  // A table symmetric up to rounding: its exact copy (one shift, one sign) where the difference costs the queries at
  // most a quarter of the tolerance; the table itself otherwise, or when no queries say what is measurable.
  if (family.rounding_symmetric_copy && !queries.empty() && options.several_pairs == SeveralPairsMethod::kAuto) {
    PairBounds copy = compose_bounds(single_release_bounds(*family.rounding_symmetric_copy, options), n, options, queries);
    copy.family = family.rounding_symmetric_copy;
    if (copy_allowance_within_tolerance(copy, queries, options.adaptive_skip_width)) return copy;
  }
  PairBounds result = compose_bounds(single_release_bounds(family, options), n, options, queries);
  result.family = std::make_shared<const PairFamily>(family);
  return result;
}

PairBounds account_heterogeneous(const std::vector<std::pair<PairFamily, int64_t>>& parts, const AccountantOptions& options) {
  if (parts.empty()) throw InputError("heterogeneous composition needs at least one part");
  std::vector<std::pair<PairBounds, int64_t>> singles;
  for (const auto& [family, count] : parts) {
    if (family.neighbours != parts.front().first.neighbours)
      throw InputError("heterogeneous composition: every part must use the same neighbour relation");
    if (count < 1) throw InputError(fmt::format("number of compositions {} must be at least 1", count));
    singles.emplace_back(single_release_bounds(family, options), count);
  }
  return compose_heterogeneous_bounds(singles, options);
}

PairBounds compose_heterogeneous_bounds(const std::vector<std::pair<PairBounds, int64_t>>& parts, const AccountantOptions& options) {
  if (parts.empty()) throw InputError("heterogeneous composition needs at least one part");
  PairBounds result;
  bool all_mirror = true;
  int64_t total = 0;
  for (const auto& [single, count] : parts) {
    if (count < 1) throw InputError(fmt::format("number of compositions {} must be at least 1", count));
    if (count > kMaxCompositions - total)
      throw InputError(fmt::format("total number of compositions exceeds the accountant's limit of {}", kMaxCompositions));
    all_mirror = all_mirror && !single.upper.second_to_first && !single.lower.front().second_to_first;
    total += count;
  }
  auto compose_side = [&](auto select, bool reverse) {
    std::vector<std::pair<PrivacyLossDistribution, int64_t>> factors;
    for (const auto& [single, count] : parts) factors.emplace_back(select(single).direction(reverse), count);
    return compose_heterogeneous(factors, options);
  };
  auto upper_of = [](const PairBounds& b) -> const DirectionalPLDs& { return b.upper; };
  auto lower_of = [](const PairBounds& b) -> const DirectionalPLDs& { return b.lower.front(); };
  result.compositions = total;
  result.options = options;
  result.neighbours = parts.front().first.neighbours;
  result.record_relation = parts.front().first.record_relation;
  double log_survival_first = 0.0, log_survival_second = 0.0;
  for (const auto& [single, count] : parts) {
    const auto [first, second] = composition_omegas(single);
    log_survival_first += log_survival(first, count);
    log_survival_second += log_survival(second, count);
    // "Per release" of a heterogeneous composition: the worst part.
    result.single_release_infinity_mass_first = std::max(result.single_release_infinity_mass_first, first);
    result.single_release_infinity_mass_second = std::max(result.single_release_infinity_mass_second, second);
  }
  result.composed_infinity_mass_first = -std::expm1(log_survival_first);
  result.composed_infinity_mass_second = -std::expm1(log_survival_second);
  for (const auto& [single, count] : parts)
    result.substitution_tv += single.substitution_tv * static_cast<double>(count) * (1.0 + 1e-12);
  result.upper.name = "heterogeneous composition";
  result.upper.first_to_second = compose_side(upper_of, false);
  DirectionalPLDs lower;
  lower.name = "heterogeneous composition";
  lower.first_to_second = compose_side(lower_of, false);
  if (!all_mirror) {
    result.upper.second_to_first = compose_side(upper_of, true);
    lower.second_to_first = compose_side(lower_of, true);
  }
  result.lower.push_back(std::move(lower));
  std::vector<std::string> names, justifications;
  for (size_t i = 0; i < parts.size(); ++i) {
    names.push_back(fmt::format("{} x{}", parts[i].first.pair_description, parts[i].second));
    justifications.push_back(fmt::format("part {}: {}", i + 1, parts[i].first.shift_justification));
  }
  result.pair_description = fmt::format("{}", fmt::join(names, " + "));
  result.shift_justification = fmt::format("{}", fmt::join(justifications, "; "));
  heterogeneous_adaptive_upper(result, parts, options);
  return result;
}

}  // namespace noiselearn
