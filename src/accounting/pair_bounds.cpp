#include "accounting/pair_bounds.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

// The questions a PairBounds answers: delta and epsilon, upper and lower, per direction, which method wins, whether the
// floating-point allowance or the truncations make a bracket, and the allowance for a symmetric copy accounted in a
// table's place. How the bounds are made (discretisation, composition, the adaptive programme, tilting):
// pair_accountant.cpp.
namespace noiselearn {

namespace {

double max_over(const DirectionalPLDs& d, double (PrivacyLossDistribution::*query)(double) const, double x) {
  double value = (d.first_to_second.*query)(x);
  if (d.second_to_first) value = std::max(value, ((*d.second_to_first).*query)(x));
  return value;
}

}  // namespace

double PairBounds::substitution_allowance(double epsilon) const {
  if (substitution_tv == 0.0) return 0.0;
  // |(P(E) - g Q(E)) - (P'(E) - g Q'(E))| <= TV(P, P') + g TV(Q, Q') for every event E, and the total variation of n
  // releases (adaptively chosen or not) is at most the sum of theirs: src/accounting/README.md, "Tables symmetric up
  // to rounding".
  return substitution_tv * (1.0 + std::exp(epsilon)) * (1.0 + 1e-12);
}

namespace {

// The bounds of the pairs accounted (the table's, or its symmetric copy's), before the substitution's allowance.
// `curve(c)` asks a pair-loss curve of the bounds or of a tilted alternative; `adaptive(a)` asks the adaptive
// programme's curves, when they exist for this direction. The least of them is the copy's bound.
template <class AskCurve, class AskAdaptive>
double copy_upper_of_direction(const PairBounds& b, bool reverse, AskCurve curve, AskAdaptive adaptive) {
  double value = curve(b.upper.direction(reverse));
  for (const auto& t : b.alternatives.tilted) value = std::min(value, curve(t.upper.direction(reverse)));
  const size_t index = reverse && b.upper.second_to_first ? 1 : 0;
  if (index < b.alternatives.adaptive.size()) value = std::min(value, adaptive(b.alternatives.adaptive[index]));
  return value;
}

double copy_delta_upper_of_direction(const PairBounds& b, bool reverse, double epsilon) {
  return copy_upper_of_direction(
      b, reverse, [epsilon](const auto& c) { return c.delta_for_epsilon(epsilon); },
      [epsilon](const auto& a) { return a.delta_upper(epsilon); });
}

double copy_epsilon_upper_of_direction(const PairBounds& b, bool reverse, double delta) {
  return copy_upper_of_direction(
      b, reverse, [delta](const auto& c) { return c.epsilon_for_delta(delta); },
      [delta](const auto& a) { return a.epsilon_upper(delta); });
}

}  // namespace

double PairBounds::delta_upper_of_direction(bool reverse, double epsilon) const {
  const double value = copy_delta_upper_of_direction(*this, reverse, epsilon);
  return substitution_tv == 0.0 ? value : std::min(1.0, value + substitution_allowance(epsilon));
}

double PairBounds::epsilon_paying_allowance(const std::function<double(double)>& copy_epsilon, double delta) const {
  const double copy = copy_epsilon(delta);
  if (substitution_tv == 0.0 || !std::isfinite(copy)) return copy;
  // The least eps whose copy bound plus allowance is at most delta, from above: with the allowance a at eps0 + m
  // (eps0 the copy's answer), the copy's eps at delta - a certifies delta whenever it is at most eps0 + m (the
  // allowance grows with eps). A small margin m first (1e-3 of max(1, eps0): the allowance there is barely above its
  // value at eps0), then m = 1.
  for (const double margin : {1e-3 * std::max(1.0, copy), 1.0}) {
    const double a = substitution_allowance(std::max(0.0, copy) + margin);
    if (!(a < delta)) continue;
    const double shifted = copy_epsilon(delta - a);
    if (shifted <= std::max(0.0, copy) + margin) return shifted;
  }
  return std::numeric_limits<double>::infinity();
}

double PairBounds::epsilon_upper_of_direction(bool reverse, double delta) const {
  return epsilon_paying_allowance([&](double d) { return copy_epsilon_upper_of_direction(*this, reverse, d); }, delta);
}

double PairBounds::delta_upper(double epsilon) const {
  double value = delta_upper_of_direction(false, epsilon);
  if (upper.second_to_first) value = std::max(value, delta_upper_of_direction(true, epsilon));
  if (alternatives.closed_form) value = std::min(value, alternatives.closed_form->delta_upper(epsilon));
  return value;
}

namespace {

// The largest of a query over every lower scenario, untilted and tilted, starting from `floor`.
double scenario_lower(const PairBounds& b, double (PrivacyLossDistribution::*query)(double) const, double x,
                      double floor) {
  double value = floor;
  for (const auto& scenario : b.lower) value = std::max(value, max_over(scenario, query, x));
  for (const auto& t : b.alternatives.tilted)
    for (const auto& scenario : t.lower) value = std::max(value, max_over(scenario, query, x));
  return value;
}

double scenario_delta_lower(const PairBounds& b, double epsilon) {
  return scenario_lower(b, &PrivacyLossDistribution::delta_for_epsilon, epsilon, 0.0);
}

double scenario_epsilon_lower(const PairBounds& b, double delta) {
  return scenario_lower(b, &PrivacyLossDistribution::epsilon_for_delta, delta,
                        -std::numeric_limits<double>::infinity());
}

double adaptive_delta_lower(const PairBounds& b, double epsilon) {
  double value = 0.0;
  for (const auto& a : b.alternatives.adaptive) value = std::max(value, a.delta_lower(epsilon));
  return value;
}

double two_outcome_delta_lower(const PairBounds& b, double epsilon) {
  double value = 0.0;
  for (const auto& t : b.alternatives.two_outcome) value = std::max(value, t.delta_lower(epsilon));
  return value;
}

// The larger of `known` and the two-outcome bounds' epsilon at delta (each searched only above `known`).
double two_outcome_epsilon_lower(const PairBounds& b, double delta, double known) {
  double value = known;
  for (const auto& t : b.alternatives.two_outcome) value = std::max(value, t.epsilon_lower(delta, value));
  return value;
}

double adaptive_epsilon_lower(const PairBounds& b, double delta) {
  double value = -std::numeric_limits<double>::infinity();
  for (const auto& a : b.alternatives.adaptive) value = std::max(value, a.epsilon_lower(delta));
  return value;
}

double envelope_epsilon_upper(const PairBounds& b, bool reverse, double delta) {
  double value = b.upper.direction(reverse).epsilon_for_delta(delta);
  for (const auto& t : b.alternatives.tilted)
    value = std::min(value, t.upper.direction(reverse).epsilon_for_delta(delta));
  return value;
}

double envelope_delta_upper(const PairBounds& b, bool reverse, double epsilon) {
  double value = b.upper.direction(reverse).delta_for_epsilon(epsilon);
  for (const auto& t : b.alternatives.tilted)
    value = std::min(value, t.upper.direction(reverse).delta_for_epsilon(epsilon));
  return value;
}

}  // namespace

double PairBounds::bucketed_delta_lower(double epsilon) const {
  double value = 0.0;
  for (const auto& b : alternatives.bucketed) value = std::max(value, b.delta_lower(epsilon));
  return value;
}

double PairBounds::bucketed_epsilon_lower(double delta) const {
  double value = 0.0;
  for (const auto& b : alternatives.bucketed) value = std::max(value, b.epsilon_lower(delta, value));
  return value;
}

double PairBounds::delta_lower(double epsilon) const {
  const double copy = std::max({scenario_delta_lower(*this, epsilon), adaptive_delta_lower(*this, epsilon),
                                two_outcome_delta_lower(*this, epsilon), bucketed_delta_lower(epsilon)});
  const double value = substitution_tv == 0.0 ? copy : std::max(0.0, copy - substitution_allowance(epsilon));
  return alternatives.closed_form && alternatives.closed_form->exact
             ? std::max(value, alternatives.closed_form->delta_lower(epsilon))
             : value;
}

double PairBounds::epsilon_upper(double delta) const {
  double value = epsilon_upper_of_direction(false, delta);
  if (upper.second_to_first) value = std::max(value, epsilon_upper_of_direction(true, delta));
  if (alternatives.closed_form) value = std::min(value, alternatives.closed_form->epsilon_upper(delta));
  return std::max(0.0, value);
}

double PairBounds::epsilon_lower(double delta) const {
  const auto copy_at = [&](double d) {
    const double known = two_outcome_epsilon_lower(
        *this, d, std::max({0.0, scenario_epsilon_lower(*this, d), adaptive_epsilon_lower(*this, d)}));
    double value = known;
    for (const auto& b : alternatives.bucketed) value = std::max(value, b.epsilon_lower(d, value));
    return value;
  };
  const double copy = copy_at(delta);
  const double closed = alternatives.closed_form && alternatives.closed_form->exact
                            ? alternatives.closed_form->epsilon_lower(delta)
                            : 0.0;
  if (substitution_tv == 0.0) return std::max(copy, closed);
  // Below eps_L = the copy's lower eps at delta + a, with a the allowance at the copy's lower eps at delta (>= eps_L),
  // the copy's lower delta exceeds delta + a, so the table's exceeds delta.
  const double a = substitution_allowance(copy);
  return delta + a < 1.0 ? copy_at(delta + a) : 0.0;
}

bool PairBounds::adaptive_upper_wins_at_epsilon(double epsilon) const {
  for (size_t i = 0; i < alternatives.adaptive.size(); ++i) {
    const bool reverse = i == 1;
    if (alternatives.adaptive[i].delta_upper(epsilon) < envelope_delta_upper(*this, reverse, epsilon)) return true;
  }
  return false;
}

bool PairBounds::adaptive_upper_wins_at_delta(double delta) const {
  for (size_t i = 0; i < alternatives.adaptive.size(); ++i) {
    const bool reverse = i == 1;
    if (alternatives.adaptive[i].epsilon_upper(delta) < envelope_epsilon_upper(*this, reverse, delta)) return true;
  }
  return false;
}

bool PairBounds::whole_adaptive_programme() const {
  return !alternatives.adaptive.empty() && !alternatives.adaptive.front().blocks.composed;
}

bool PairBounds::two_outcome_lower_wins_at_epsilon(double epsilon) const {
  return !alternatives.two_outcome.empty() &&
         two_outcome_delta_lower(*this, epsilon) >
             std::max(scenario_delta_lower(*this, epsilon), adaptive_delta_lower(*this, epsilon));
}

bool PairBounds::two_outcome_lower_wins_at_delta(double delta) const {
  if (alternatives.two_outcome.empty()) return false;
  const double others = std::max({0.0, scenario_epsilon_lower(*this, delta), adaptive_epsilon_lower(*this, delta)});
  return two_outcome_epsilon_lower(*this, delta, others) > others;
}

bool PairBounds::adaptive_lower_wins_at_epsilon(double epsilon) const {
  return !alternatives.adaptive.empty() && adaptive_delta_lower(*this, epsilon) > scenario_delta_lower(*this, epsilon);
}

bool PairBounds::adaptive_lower_wins_at_delta(double delta) const {
  return !alternatives.adaptive.empty() && adaptive_epsilon_lower(*this, delta) > scenario_epsilon_lower(*this, delta);
}

double PairBounds::absolute_allowance(double epsilon) const {
  auto of = [&](const DirectionalPLDs& d) {
    double a = d.first_to_second.absolute_allowance(epsilon);
    if (d.second_to_first) a = std::max(a, d.second_to_first->absolute_allowance(epsilon));
    return a;
  };
  double upper_allowance = of(upper);
  for (const auto& t : alternatives.tilted) upper_allowance = std::min(upper_allowance, of(t.upper));
  double lower_allowance = 0.0;
  for (const auto& scenario : lower) lower_allowance = std::max(lower_allowance, of(scenario));
  return std::max(upper_allowance, lower_allowance);
}

bool PairBounds::allowance_dominates(double epsilon) const {
  const double allowance = absolute_allowance(epsilon);
  const double gap = delta_upper(epsilon) - delta_lower(epsilon);
  return allowance > 0.0 && allowance > 0.05 * gap && gap > 1e-9 * delta_upper(epsilon);
}

std::string PairBounds::dominating_direction_at_epsilon(double epsilon) const {
  if (!upper.second_to_first) return "A||B = B||A";
  return delta_upper_of_direction(false, epsilon) >= delta_upper_of_direction(true, epsilon) ? "A||B" : "B||A";
}

std::string PairBounds::dominating_direction_at_delta(double delta) const {
  if (!upper.second_to_first) return "A||B = B||A";
  return epsilon_upper_of_direction(false, delta) >= epsilon_upper_of_direction(true, delta) ? "A||B" : "B||A";
}

double PairBounds::truncated_mass() const {
  double mass = upper.first_to_second.truncated_mass;
  if (upper.second_to_first) mass = std::max(mass, upper.second_to_first->truncated_mass);
  return mass;
}

bool PairBounds::truncation_dominates(double epsilon) const {
  const double gap = delta_upper(epsilon) - delta_lower(epsilon);
  return truncated_mass() > 0.05 * gap && gap > 1e-9 * delta_upper(epsilon);
}

double PairBounds::tail_mass_for_delta(double delta) const {
  // Each truncation's mass is carried to the end by the later compositions: about 2 n tail_mass in all.
  const double wanted = 1e-4 * delta / (2.0 * static_cast<double>(std::max<int64_t>(1, compositions)));
  return std::min(context.options.tail_mass, std::max(1e-25, wanted));
}

}  // namespace noiselearn
