#include "accounting/heterogeneous_composition.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "accounting/adaptive_decision.hpp"
#include "accounting/composition.hpp"
#include "accounting/pair_accountant.hpp"
#include "accounting/scenario_composition.hpp"
#include "core/errors.hpp"

namespace noiselearn {

PairBounds account_heterogeneous(const std::vector<std::pair<PairFamily, int64_t>>& parts,
                                 const AccountantOptions& options) {
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

PairBounds compose_heterogeneous_bounds(const std::vector<std::pair<PairBounds, int64_t>>& parts,
                                        const AccountantOptions& options) {
  if (parts.empty()) throw InputError("heterogeneous composition needs at least one part");
  PairBounds result;
  bool all_mirror = true;
  int64_t total = 0;
  for (const auto& [single, count] : parts) {
    if (count < 1) throw InputError(fmt::format("number of compositions {} must be at least 1", count));
    if (count > kMaxCompositions - total)
      throw InputError(
          fmt::format("total number of compositions exceeds the accountant's limit of {}", kMaxCompositions));
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
  result.context.options = options;
  for (const auto& part : parts)
    result.context.loss_step_wanted = std::max(result.context.loss_step_wanted, part.first.context.loss_step_wanted);
  result.accounted.neighbours = parts.front().first.accounted.neighbours;
  double log_survival_first = 0.0, log_survival_second = 0.0;
  for (const auto& [single, count] : parts) {
    const auto [first, second] = composition_omegas(single);
    log_survival_first += log_survival(first, count);
    log_survival_second += log_survival(second, count);
    // "Per release" of a heterogeneous composition: the worst part.
    result.single_release_infinity_mass.first = std::max(result.single_release_infinity_mass.first, first);
    result.single_release_infinity_mass.second = std::max(result.single_release_infinity_mass.second, second);
  }
  result.composed_infinity_mass.first = -std::expm1(log_survival_first);
  result.composed_infinity_mass.second = -std::expm1(log_survival_second);
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
    names.push_back(fmt::format("{} x{}", parts[i].first.accounted.pair, parts[i].second));
    justifications.push_back(fmt::format("part {}: {}", i + 1, parts[i].first.accounted.pairs_checked));
  }
  result.accounted.pair = fmt::format("{}", fmt::join(names, " + "));
  result.accounted.pairs_checked = fmt::format("{}", fmt::join(justifications, "; "));
  heterogeneous_adaptive_upper(result, parts, options);
  return result;
}

}  // namespace noiselearn
