#include "accounting/pair_accountant.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "accounting/composition.hpp"
#include "accounting/loss_discretisation.hpp"
#include "accounting/profile_envelope.hpp"
#include "core/errors.hpp"

namespace noiselearn {

namespace {

bool is_own_mirror(const DominatingPair& pair) {
  const size_t n = pair.a.size();
  for (size_t i = 0; i < n; ++i)
    if (pair.b[i] != pair.a[n - 1 - i]) return false;
  return true;
}

DirectionalPLDs discretise_pair(const DominatingPair& pair, BoundKind bound, const AccountantOptions& options) {
  DirectionalPLDs result;
  result.name = pair.description;
  result.first_to_second = discretise(privacy_loss_atoms(pair.a, pair.b), bound, options);
  if (!is_own_mirror(pair)) result.second_to_first = discretise(privacy_loss_atoms(pair.b, pair.a), bound, options);
  return result;
}

DirectionalPLDs compose_directions(const DirectionalPLDs& single, int64_t n, const AccountantOptions& options) {
  DirectionalPLDs result;
  result.name = single.name;
  result.first_to_second = self_compose(single.first_to_second, n, options);
  if (single.second_to_first) result.second_to_first = self_compose(*single.second_to_first, n, options);
  return result;
}

double max_over(const DirectionalPLDs& d, double (PrivacyLossDistribution::*query)(double) const, double x) {
  double value = (d.first_to_second.*query)(x);
  if (d.second_to_first) value = std::max(value, ((*d.second_to_first).*query)(x));
  return value;
}

}  // namespace

double PairBounds::delta_upper(double epsilon) const {
  return max_over(upper, &PrivacyLossDistribution::delta_for_epsilon, epsilon);
}

double PairBounds::delta_lower(double epsilon) const {
  double value = 0.0;
  for (const auto& scenario : lower) value = std::max(value, max_over(scenario, &PrivacyLossDistribution::delta_for_epsilon, epsilon));
  return value;
}

double PairBounds::epsilon_upper(double delta) const {
  return std::max(0.0, max_over(upper, &PrivacyLossDistribution::epsilon_for_delta, delta));
}

double PairBounds::epsilon_lower(double delta) const {
  double value = 0.0;
  for (const auto& scenario : lower) value = std::max(value, max_over(scenario, &PrivacyLossDistribution::epsilon_for_delta, delta));
  return std::max(0.0, value);
}

std::string PairBounds::dominating_direction_at_epsilon(double epsilon) const {
  if (!upper.second_to_first) return "A||B = B||A";
  return upper.first_to_second.delta_for_epsilon(epsilon) >= upper.second_to_first->delta_for_epsilon(epsilon) ? "A||B"
                                                                                                              : "B||A";
}

std::string PairBounds::dominating_direction_at_delta(double delta) const {
  if (!upper.second_to_first) return "A||B = B||A";
  return upper.first_to_second.epsilon_for_delta(delta) >= upper.second_to_first->epsilon_for_delta(delta) ? "A||B"
                                                                                                          : "B||A";
}

PairBounds single_release_bounds(const PairFamily& family, const AccountantOptions& options) {
  options.validate();
  if (family.pairs.empty()) throw InputError("no dominating pair to account");
  PairBounds bounds;
  bounds.shift_justification = family.justification;
  if (family.pairs.size() == 1) {
    const DominatingPair& pair = family.pairs.front();
    bounds.pair_description = pair.description;
    bounds.upper = discretise_pair(pair, BoundKind::kUpper, options);
    bounds.lower.push_back(discretise_pair(pair, BoundKind::kLower, options));
  } else {
    // Envelope over all shifts. For additive noise a release may have either sign of the difference, so the
    // envelope also covers both directions (shift -j in A||B is shift +j in B||A); for the subsampled mixture
    // (add/remove neighbours, the direction is fixed) each direction gets its own envelope.
    const bool additive = family.kind == PairKind::kAdditive;
    std::vector<DirectionalPLDs> singles;
    for (const auto& pair : family.pairs) singles.push_back(discretise_pair(pair, BoundKind::kUpper, options));
    std::vector<PrivacyLossDistribution> forward, backward;
    for (const auto& s : singles) {
      forward.push_back(s.first_to_second);
      backward.push_back(s.direction(true));
    }
    std::vector<int64_t> attained(singles.size(), 0);
    if (additive) {
      std::vector<PrivacyLossDistribution> all = forward;
      all.insert(all.end(), backward.begin(), backward.end());
      EnvelopeResult env = profile_envelope(all, options);
      bounds.upper.first_to_second = env.envelope;
      for (size_t i = 0; i < singles.size(); ++i) attained[i] = env.points_attained[i] + env.points_attained[i + singles.size()];
      bounds.upper.name = fmt::format("envelope of shifts 1..{} cells, both signs", family.sensitivity_cells);
    } else {
      EnvelopeResult env_forward = profile_envelope(forward, options);
      EnvelopeResult env_backward = profile_envelope(backward, options);
      bounds.upper.first_to_second = env_forward.envelope;
      bounds.upper.second_to_first = env_backward.envelope;
      for (size_t i = 0; i < singles.size(); ++i)
        attained[i] = env_forward.points_attained[i] + env_backward.points_attained[i];
      bounds.upper.name = fmt::format("envelope of shifts 1..{} cells", family.sensitivity_cells);
    }
    bounds.pair_description = fmt::format("{} (every shift 1..{} cells)", family.pairs.back().description,
                                          family.sensitivity_cells);
    // Lower bound: the (at most four) pairs that attain the envelope at the most grid points, always
    // including the maximal shift.
    std::vector<size_t> order(singles.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return attained[x] > attained[y]; });
    std::vector<size_t> chosen{singles.size() - 1};
    for (size_t i : order) {
      if (chosen.size() >= 4) break;
      if (attained[i] > 0 && std::find(chosen.begin(), chosen.end(), i) == chosen.end()) chosen.push_back(i);
    }
    for (size_t i : chosen) bounds.lower.push_back(discretise_pair(family.pairs[i], BoundKind::kLower, options));
  }
  // Distinguishing events only (the upper bound's infinity mass also holds the truncated top tail), worst pair.
  for (const auto& pair : family.pairs) {
    bounds.single_release_infinity_mass_first =
        std::max(bounds.single_release_infinity_mass_first, privacy_loss_atoms(pair.a, pair.b).infinity_mass);
    bounds.single_release_infinity_mass_second =
        std::max(bounds.single_release_infinity_mass_second, privacy_loss_atoms(pair.b, pair.a).infinity_mass);
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

}  // namespace

PairBounds compose_bounds(const PairBounds& single, int64_t n, const AccountantOptions& options) {
  PairBounds result = single;
  result.compositions = n;
  const auto [first, second] = composition_omegas(single);
  result.composed_infinity_mass_first = -std::expm1(log_survival(first, n));
  result.composed_infinity_mass_second = -std::expm1(log_survival(second, n));
  result.upper = compose_directions(single.upper, n, options);
  result.lower.clear();
  for (const auto& scenario : single.lower) result.lower.push_back(compose_directions(scenario, n, options));
  return result;
}

PairBounds account(const PairFamily& family, int64_t n, const AccountantOptions& options) {
  return compose_bounds(single_release_bounds(family, options), n, options);
}

PairBounds account_heterogeneous(const std::vector<std::pair<PairFamily, int64_t>>& parts, const AccountantOptions& options) {
  if (parts.empty()) throw InputError("heterogeneous composition needs at least one part");
  PairBounds result;
  bool all_mirror = true;
  std::vector<PairBounds> singles;
  int64_t total = 0;
  for (const auto& [family, count] : parts) {
    if (count < 1) throw InputError(fmt::format("number of compositions {} must be at least 1", count));
    singles.push_back(single_release_bounds(family, options));
    all_mirror = all_mirror && !singles.back().upper.second_to_first && !singles.back().lower.front().second_to_first;
    total += count;
  }
  auto compose_side = [&](auto select, bool reverse) {
    std::vector<std::pair<PrivacyLossDistribution, int64_t>> factors;
    for (size_t i = 0; i < parts.size(); ++i) factors.emplace_back(select(singles[i]).direction(reverse), parts[i].second);
    return compose_heterogeneous(factors, options);
  };
  auto upper_of = [](const PairBounds& b) -> const DirectionalPLDs& { return b.upper; };
  auto lower_of = [](const PairBounds& b) -> const DirectionalPLDs& { return b.lower.front(); };
  result.compositions = total;
  double log_survival_first = 0.0, log_survival_second = 0.0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const auto [first, second] = composition_omegas(singles[i]);
    log_survival_first += log_survival(first, parts[i].second);
    log_survival_second += log_survival(second, parts[i].second);
    // "Per release" of a heterogeneous composition: the worst part.
    result.single_release_infinity_mass_first = std::max(result.single_release_infinity_mass_first, first);
    result.single_release_infinity_mass_second = std::max(result.single_release_infinity_mass_second, second);
  }
  result.composed_infinity_mass_first = -std::expm1(log_survival_first);
  result.composed_infinity_mass_second = -std::expm1(log_survival_second);
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
  std::vector<std::string> names;
  for (size_t i = 0; i < parts.size(); ++i) names.push_back(fmt::format("{} x{}", singles[i].pair_description, parts[i].second));
  result.pair_description = fmt::format("{}", fmt::join(names, " + "));
  std::vector<std::string> justifications;
  for (size_t i = 0; i < parts.size(); ++i)
    justifications.push_back(fmt::format("part {}: {}", i + 1, singles[i].shift_justification));
  result.shift_justification = fmt::format("{}", fmt::join(justifications, "; "));
  return result;
}

}  // namespace noiselearn
