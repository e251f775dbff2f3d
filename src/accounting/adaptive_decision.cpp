#include "accounting/adaptive_decision.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "accounting/adaptive_blocks.hpp"
#include "accounting/composition.hpp"
#include "accounting/profile_envelope.hpp"
#include "accounting/scenario_composition.hpp"
#include "core/errors.hpp"

namespace noiselearn {

namespace {

// Relative width of the epsilon bracket at delta: 0 when both ends are infinite (delta below the distinguishing
// events, nothing to narrow), 1 when only the upper end is.
double relative_epsilon_width(const PairBounds& bounds, double delta) {
  const double upper = bounds.epsilon_upper(delta), lower = bounds.epsilon_lower(delta);
  if (!std::isfinite(upper)) return std::isfinite(lower) ? 1.0 : 0.0;
  return upper > 0.0 ? (upper - lower) / upper : 0.0;
}

}  // namespace

// The widest relative epsilon bracket at delta = omega + 1e-3, 1e-6 and 1e-10 (omega the composed distinguishing-
// event mass, below which no epsilon exists).
double widest_epsilon_bracket(const PairBounds& bounds) {
  const double omega = std::max(bounds.composed_infinity_mass.first, bounds.composed_infinity_mass.second);
  double width = 0.0;
  for (double d : {1e-3, 1e-6, 1e-10})
    if (omega + d < 1.0) width = std::max(width, relative_epsilon_width(bounds, omega + d));
  return width;
}

namespace {

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

}  // namespace

// Runs the exact adaptive programme on `candidates` (per direction) for n releases, or says why not.
void run_adaptive_programme(PairBounds& bounds, const std::vector<AdaptiveReleases>& candidates, int64_t n,
                            const AccountantOptions& options, const AccountingQueries& queries) {
  bounds.alternatives.adaptive.clear();
  bounds.alternatives.several_pairs_note.clear();
  if (candidates.empty()) return;
  if (options.several_pairs == SeveralPairsMethod::kEnvelope) {
    bounds.alternatives.several_pairs_note =
        "profile envelope (the adaptive programme is off: several-pairs method 'envelope')";
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
        bounds.alternatives.several_pairs_note = fmt::format(
            "profile envelope (its epsilon bracket is within {:g} relative at delta 1e-3, 1e-6 and 1e-10 above the "
            "distinguishing events; the adaptive programme would not narrow it)",
            options.adaptive_skip_width);
        return;
      }
    } else {
      const auto [width, query] = widest_query_bracket(bounds, queries);
      if (width <= options.adaptive_skip_width) {
        bounds.alternatives.several_pairs_note = fmt::format(
            "profile envelope (its bracket is within {:g} relative at every query, or made by the floating-point "
            "allowance; the adaptive programme would not narrow it)",
            options.adaptive_skip_width);
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
        bounds.alternatives.several_pairs_note = fmt::format(
            "profile envelope (the adaptive programme's estimated cost {:.3g} exceeds the budget {:.3g}, and the block "
            "budget {:.3g} even in blocks of 2 releases; raise certification.adaptive_block_budget or coarsen the loss "
            "step)",
            cost, options.adaptive_budget, options.adaptive_block_budget);
        return;
      }
      for (const auto& run : runs)
        bounds.alternatives.adaptive.push_back(adaptive_block_composition(run.front(), block, options));
      bounds.alternatives.several_pairs_note = fmt::format(
          "{} (the whole programme's estimated cost {:.3g} exceeds the budget {:.3g}; "
          "blocks within the block budget {:.3g}), beside the profile envelope{}",
          bounds.alternatives.adaptive.front().describe(), cost, options.adaptive_budget, options.adaptive_block_budget,
          reason);
      return;
    }
  }
  for (const auto& run : runs) bounds.alternatives.adaptive.push_back(adaptive_composition(run, options));
  bounds.alternatives.several_pairs_note =
      bounds.alternatives.adaptive.front().describe() + ", beside the profile envelope" + reason;
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
  for (const auto& [single, count] : parts) any_candidates = any_candidates || !single.candidates.adaptive.empty();
  if (!any_candidates) return;
  const std::string envelope_note = "profile envelope of each part, which holds in any order of the releases";
  if (options.several_pairs == SeveralPairsMethod::kEnvelope) {
    result.alternatives.several_pairs_note =
        envelope_note + " (the adaptive programme is off: several-pairs method 'envelope')";
    return;
  }
  if (options.several_pairs == SeveralPairsMethod::kAuto &&
      widest_epsilon_bracket(result) <= options.adaptive_skip_width) {
    result.alternatives.several_pairs_note = fmt::format(
        "{} (its epsilon bracket is within {:g} relative; the adaptive programme "
        "would not narrow it)",
        envelope_note, options.adaptive_skip_width);
    return;
  }
  // Cost of every part's whole programme; over the budget (auto), each part in blocks within its share of the block
  // budget.
  double cost = 0.0;
  size_t runs = 0;
  for (size_t i = 0; i < parts.size(); ++i)
    for (const auto& c : parts[i].first.candidates.adaptive) {
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
    if (blocks && !single.candidates.adaptive.empty())
      for (const auto& c : single.candidates.adaptive) {
        AdaptiveReleases releases = c;
        releases.count = n;
        block =
            std::min(block, largest_block_within(releases, options.adaptive_block_budget / static_cast<double>(runs)));
      }
    if (single.candidates.adaptive.empty() || block < std::min<int64_t>(2, n)) {
      for (size_t r = 0; r < factors.size(); ++r) factors[r].emplace_back(single.upper.direction(r == 1), n);
      how.push_back(
          fmt::format("part {}: {}", i + 1,
                      single.candidates.adaptive.empty() ? "one candidate pair" : "envelope (over the budget)"));
      continue;
    }
    std::vector<AdaptiveCurves> curves;
    for (const auto& c : single.candidates.adaptive) {
      AdaptiveReleases releases = c;
      releases.count = n;
      curves.push_back(adaptive_block_composition(releases, block, options));
    }
    // One run covers both directions when the part's candidates hold every pair in both (the `any` relation).
    for (size_t r = 0; r < factors.size(); ++r)
      factors[r].emplace_back(*curves[std::min(r, curves.size() - 1)].blocks.composed, 1);
    how.push_back(block == n ? fmt::format("part {}: the whole programme of {} release{}", i + 1, n, n == 1 ? "" : "s")
                             : fmt::format("part {}: blocks of {} releases", i + 1, block));
  }
  result.alternatives.adaptive.clear();
  for (size_t r = 0; r < factors.size(); ++r) {
    AdaptiveCurves curve;
    curve.loss_step = factors[r].front().first.loss_step;
    curve.compositions = result.compositions;
    curve.blocks.composed = std::make_shared<const PrivacyLossDistribution>(compose_heterogeneous(factors[r], options));
    curve.description = fmt::format(
        "exact adaptive programme per part ({}), each part's adaptive profile hull as a "
        "dominating pair, the parts composed (in any order of the releases; upper bound only)",
        fmt::join(how, "; "));
    result.alternatives.adaptive.push_back(std::move(curve));
  }
  result.alternatives.several_pairs_note =
      result.alternatives.adaptive.front().describe() + ", beside the profile envelope";
}

}  // namespace noiselearn
