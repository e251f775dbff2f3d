#include "accounting/profile_envelope.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "accounting/double_double.hpp"
#include "accounting/loss_discretisation.hpp"
#include "core/directed_rounding.hpp"

namespace noiselearn {

namespace {

// Every input's curve at the grid points low-1 .. high+1 (index i = j - low + 1), its value at -inf (its
// total) and its infinity mass, raised by its allowance and by the double-double rounding of the recurrence.
struct RaisedCurve {
  std::vector<dd::Value> delta;
  dd::Value total, infinity;
};

RaisedCurve raised_curve(const PrivacyLossDistribution& pld, int64_t low, int64_t high, dd::Value decay,
                         dd::Value one_minus_decay) {
  const size_t points = static_cast<size_t>(high - low + 3);
  RaisedCurve curve;
  curve.delta.assign(points, {});
  // delta_j = delta_{j+1} + (1 - e^{-step}) G_j, G_{j-1} = m_j + e^{-step} G_j, from the top (j = high + 1,
  // where delta = omega) down to j = low - 1. All terms are non-negative: the relative rounding is at most
  // 16 * 2^-104 per step, hence (16 (points + 2)) 2^-104 in all.
  dd::Value g{}, delta{pld.infinity_mass, 0.0}, finite{};
  for (size_t i = points; i-- > 0;) {
    const int64_t j = low - 1 + static_cast<int64_t>(i);
    if (i + 1 < points) delta = dd::add(delta, dd::multiply(one_minus_decay, g));
    curve.delta[i] = delta;
    const int64_t k = j - pld.first_index;
    const double mass =
        (k >= 0 && k < static_cast<int64_t>(pld.masses.size())) ? pld.masses[static_cast<size_t>(k)] : 0.0;
    g = dd::add({mass, 0.0}, dd::multiply(decay, g));
    finite = dd::add(finite, {mass, 0.0});
  }
  curve.total = dd::add(finite, {pld.infinity_mass, 0.0});
  curve.infinity = {pld.infinity_mass, 0.0};
  // (value + numerical_error) / (1 - relative_error) (1 + rounding), with the rounding of these few operations.
  const double rounding = (16.0 * static_cast<double>(points + 2) + 64.0) * dd::kUnitRoundoff;
  const dd::Value factor = dd::divide({1.0 + rounding, 0.0}, dd::subtract({1.0, 0.0}, {pld.relative_error, 0.0}));
  auto raise = [&](dd::Value v) { return dd::multiply(dd::add(v, {pld.numerical_error, 0.0}), factor); };
  for (auto& v : curve.delta) v = raise(v);
  curve.total = raise(curve.total);
  curve.infinity = raise(curve.infinity);
  return curve;
}

// The raised curve in plain double precision (a cheap screen): delta_j computed from non-negative terms with a
// relative rounding of at most gamma = 4 (points + 8) u, then raised like the double-double one.
std::vector<double> screening_curve(const PrivacyLossDistribution& pld, int64_t low, int64_t high, double decay,
                                    double one_minus_decay) {
  const size_t points = static_cast<size_t>(high - low + 3);
  std::vector<double> curve(points);
  double g = 0.0, delta = pld.infinity_mass;
  for (size_t i = points; i-- > 0;) {
    const int64_t j = low - 1 + static_cast<int64_t>(i);
    if (i + 1 < points) delta += one_minus_decay * g;
    curve[i] = (delta + pld.numerical_error) / (1.0 - pld.relative_error);
    const int64_t k = j - pld.first_index;
    const double mass =
        (k >= 0 && k < static_cast<int64_t>(pld.masses.size())) ? pld.masses[static_cast<size_t>(k)] : 0.0;
    g = mass + decay * g;
  }
  return curve;
}

}  // namespace

EnvelopeResult profile_envelope(const std::vector<PrivacyLossDistribution>& upper_bounds,
                                const AccountantOptions& options) {
  if (upper_bounds.empty()) throw std::logic_error("profile_envelope needs at least one PLD");
  double step = 0.0;
  for (const auto& pld : upper_bounds) {
    if (pld.bound != BoundKind::kUpper) throw std::logic_error("profile_envelope takes upper bounds only");
    step = std::max(step, pld.loss_step);
  }
  std::vector<PrivacyLossDistribution> inputs;
  inputs.reserve(upper_bounds.size());
  for (const auto& pld : upper_bounds)
    inputs.push_back(coarsen(pld, static_cast<int64_t>(std::llround(step / pld.loss_step)), options));

  int64_t low = std::numeric_limits<int64_t>::max(), high = std::numeric_limits<int64_t>::min();
  for (const auto& pld : inputs) {
    if (pld.masses.empty()) continue;
    low = std::min(low, pld.first_index);
    high = std::max(high, pld.last_index());
  }
  EnvelopeResult result;
  result.points_attained.assign(inputs.size(), 0);
  PrivacyLossDistribution& env = result.envelope;
  env.bound = BoundKind::kUpper;
  env.loss_step = step;
  for (const auto& pld : inputs) env.truncated_mass = std::max(env.truncated_mass, pld.truncated_mass);
  // Each input's true profile is its grid profile moved by its loss shift; the largest covers them all.
  for (const auto& pld : inputs) env.loss_shift = std::max(env.loss_shift, pld.loss_shift);
  dd::Value decay, one_minus_decay;
  dd::exp_minus(step, decay, one_minus_decay);
  if (low > high) {  // only infinite losses
    double omega = 0.0;
    for (const auto& pld : inputs)
      omega = std::max(omega, dd::round_up(raised_curve(pld, 0, -1, decay, one_minus_decay).infinity));
    env.infinity_mass = omega;
    return result;
  }

  // The envelope's curve at low-1 .. high+1, its total and infinity mass: the largest raised input values.
  const size_t points = static_cast<size_t>(high - low + 3);
  // Screen in double precision first: an input whose curve, even raised by its rounding bound gamma, stays below
  // the largest curve lowered by gamma at every point can never be the maximum, and needs no double-double pass.
  // (Its total and infinity mass still count: they are cheap.) The exact maximum is among the candidates.
  const double gamma = 4.0 * (static_cast<double>(points) + 8.0) * kMachineEpsilon;
  const double decay_double = decay.to_double(), one_minus_decay_double = one_minus_decay.to_double();
  std::vector<double> screen_best(points, 0.0);
  for (const auto& pld : inputs) {
    const auto curve = screening_curve(pld, low, high, decay_double, one_minus_decay_double);
    for (size_t i = 0; i < points; ++i) screen_best[i] = std::max(screen_best[i], curve[i]);
  }
  std::vector<bool> candidate(inputs.size(), false);
  for (size_t p = 0; p < inputs.size(); ++p) {
    const auto curve = screening_curve(inputs[p], low, high, decay_double, one_minus_decay_double);
    for (size_t i = 0; i < points && !candidate[p]; ++i)
      if (curve[i] * (1.0 + gamma) >= screen_best[i] * (1.0 - gamma)) candidate[p] = true;
  }
  std::vector<dd::Value> best(points, dd::Value{-1.0, 0.0});
  std::vector<int64_t> best_input(points, -1);
  dd::Value total{0.0, 0.0}, infinity{0.0, 0.0};
  for (size_t p = 0; p < inputs.size(); ++p) {
    const PrivacyLossDistribution& pld = inputs[p];
    if (!candidate[p]) {
      const dd::Value raise{
          1.0 + 64.0 * dd::kUnitRoundoff + roundings(4.0) * static_cast<double>(pld.masses.size() + 8), 0.0};
      const dd::Value scale = dd::divide(raise, dd::subtract({1.0, 0.0}, {pld.relative_error, 0.0}));
      const dd::Value t =
          dd::multiply(dd::add({pld.finite_mass() + pld.infinity_mass, 0.0}, {pld.numerical_error, 0.0}), scale);
      const dd::Value w = dd::multiply(dd::add({pld.infinity_mass, 0.0}, {pld.numerical_error, 0.0}), scale);
      if (dd::less(total, t)) total = t;
      if (dd::less(infinity, w)) infinity = w;
      continue;
    }
    const RaisedCurve curve = raised_curve(pld, low, high, decay, one_minus_decay);
    for (size_t i = 0; i < points; ++i)
      if (dd::less(best[i], curve.delta[i])) {
        best[i] = curve.delta[i];
        best_input[i] = static_cast<int64_t>(p);
      }
    if (dd::less(total, curve.total)) total = curve.total;
    if (dd::less(infinity, curve.infinity)) infinity = curve.infinity;
  }
  for (size_t i = 1; i + 1 < points; ++i) ++result.points_attained[static_cast<size_t>(best_input[i])];
  // The top point (above every finite loss) is the infinity mass of the envelope.
  best[points - 1] = infinity;

  // G_j for j = low-1 .. high (index i = j - low + 1) and the masses at low .. high. The rounding of each mass
  // is at most 2^-104 (4 (D_{j-1} + 2 D_j + D_{j+1}) / (1 - e^{-step}) + 12 (G_{j-1} + G_j)) (a few operations
  // on the D's, a division, a product and a difference); every mass is raised by that bound and rounded up.
  std::vector<dd::Value> g(points - 1);
  for (size_t i = 0; i + 1 < points; ++i) {
    g[i] = dd::divide(dd::subtract(best[i], best[i + 1]), one_minus_decay);
    if (g[i].hi < 0.0) g[i] = {0.0, 0.0};  // the curve is non-increasing; a rounding-level dip is clamped up
  }
  const double c = one_minus_decay.to_double();
  env.first_index = low;
  env.masses.assign(static_cast<size_t>(high - low + 1), 0.0);
  dd::Value finite{};
  for (size_t i = 1; i < points - 1; ++i) {  // mass at j = low - 1 + i, from G_{j-1} = g[i-1] and G_j = g[i]
    dd::Value mass = dd::subtract(g[i - 1], dd::multiply(decay, g[i]));
    const double rounding =
        dd::kUnitRoundoff * (4.0 * (best[i - 1].to_double() + 2.0 * best[i].to_double() + best[i + 1].to_double()) / c +
                             12.0 * (g[i - 1].to_double() + g[i].to_double()));
    mass = dd::add(mass, {rounding, 0.0});
    const double rounded = mass.hi > 0.0 ? dd::round_up(mass) : 0.0;
    env.masses[i - 1] = rounded;
    finite = dd::add(finite, {rounded, 0.0});
  }
  env.infinity_mass = dd::round_up(infinity);
  // Below the lowest loss the envelope's curve is linear in e^eps, from its total at e^eps = 0 to its value at
  // l_low; it must lie above every input there as well, so the total must reach the largest input total.
  const dd::Value shortfall = dd::subtract(total, dd::add(finite, {env.infinity_mass, 0.0}));
  if (shortfall.hi > 0.0)
    env.masses.front() = dd::round_up(dd::add({env.masses.front(), 0.0}, shortfall)) * (1.0 + 4.0 * dd::kUnitRoundoff);
  return result;
}

std::vector<size_t> undominated_inputs(std::vector<PrivacyLossDistribution>& upper_bounds,
                                       const std::vector<size_t>& order) {
  const size_t count = upper_bounds.size();
  if (count == 0) return {};
  int64_t low = std::numeric_limits<int64_t>::max(), high = std::numeric_limits<int64_t>::min();
  for (const auto& pld : upper_bounds) {
    if (pld.loss_step != upper_bounds.front().loss_step)
      throw std::logic_error("undominated_inputs: loss steps differ");
    if (pld.masses.empty()) continue;
    low = std::min(low, pld.first_index);
    high = std::max(high, pld.last_index());
  }
  if (low > high) low = high = 0;
  std::vector<size_t> everything(count);
  for (size_t i = 0; i < count; ++i) everything[i] = i;
  for (const auto& pld : upper_bounds)
    if (pld.numerical_error > 0.0 || pld.relative_error > 0.0) return everything;  // values not exactly known
  dd::Value decay, one_minus_decay;
  dd::exp_minus(upper_bounds.front().loss_step, decay, one_minus_decay);
  const size_t points = static_cast<size_t>(high - low + 3);
  // The profile of each stored measure at low-1 .. high+1, then its total and its infinity mass, in double-double:
  // non-negative terms, so each value is within a relative rho of the exact one.
  const double rho = (16.0 * static_cast<double>(points + 2) + 64.0) * dd::kUnitRoundoff;
  std::vector<std::vector<dd::Value>> profiles(count);
  for (size_t p = 0; p < count; ++p) {
    const auto& pld = upper_bounds[p];
    std::vector<dd::Value>& curve = profiles[p];
    curve.resize(points + 2);
    dd::Value g{}, delta{pld.infinity_mass, 0.0}, finite{};
    for (size_t i = points; i-- > 0;) {
      const int64_t j = low - 1 + static_cast<int64_t>(i);
      if (i + 1 < points) delta = dd::add(delta, dd::multiply(one_minus_decay, g));
      curve[i] = delta;
      const int64_t k = j - pld.first_index;
      const double mass =
          (k >= 0 && k < static_cast<int64_t>(pld.masses.size())) ? pld.masses[static_cast<size_t>(k)] : 0.0;
      g = dd::add({mass, 0.0}, dd::multiply(decay, g));
      finite = dd::add(finite, {mass, 0.0});
    }
    curve[points] = dd::add(finite, {pld.infinity_mass, 0.0});
    curve[points + 1] = {pld.infinity_mass, 0.0};
  }
  // y covers x after scaling y by (1 + theta), theta the largest excess ratio of x's profile over y's (a relative
  // change of y, the size of the rounding that makes mathematically equal values, such as the totals of two
  // measures of one table, differ). Allowed only while theta is at most 1e-12.
  constexpr double kLargestScale = 1e-12;
  const dd::Value up{1.0 + 4.0 * rho, 0.0}, down{1.0 - 4.0 * rho, 0.0};
  auto excess = [&](size_t y, size_t x) {
    const auto& cx = profiles[x];
    const auto& cy = profiles[y];
    double worst = 0.0;
    for (size_t i = 0; i < cx.size(); ++i) {
      const dd::Value high = dd::multiply(cx[i], up), low_y = dd::multiply(cy[i], down);
      if (!dd::less(low_y, high)) continue;
      if (low_y.hi <= 0.0) return std::numeric_limits<double>::infinity();
      // high / low_y - 1, rounded up (the division and subtraction err by far less than 1e-20 here).
      worst = std::max(worst, dd::subtract(dd::divide(high, low_y), {1.0, 0.0}).hi * (1.0 + 1e-6) + 1e-30);
      if (worst > kLargestScale) return worst;
    }
    return worst;
  };
  std::vector<bool> in_order(count, false), dropped(count, false);
  std::vector<double> scale_by(count, 0.0);
  std::vector<size_t> kept_dominators;
  auto try_drop = [&](size_t x) {
    for (size_t y : kept_dominators) {
      const double theta = excess(y, x);
      if (theta <= kLargestScale) {
        dropped[x] = true;
        scale_by[y] = std::max(scale_by[y], theta);
        return;
      }
    }
  };
  for (size_t x : order) {
    in_order[x] = true;
    try_drop(x);
    if (!dropped[x]) kept_dominators.push_back(x);
  }
  // Dominance was decided on the grid profiles; the kept inputs take the largest loss shift of all, so that each
  // dropped input's true profile stays covered.
  double shift = 0.0;
  for (const auto& pld : upper_bounds) shift = std::max(shift, pld.loss_shift);
  std::vector<size_t> kept;
  for (size_t x = 0; x < count; ++x) {
    upper_bounds[x].loss_shift = shift;
    if (!in_order[x]) try_drop(x);
    if (dropped[x]) continue;
    kept.push_back(x);
    if (scale_by[x] > 0.0) {
      const double factor = 1.0 + scale_by[x] + roundings(8.0);
      for (double& m : upper_bounds[x].masses) m *= factor;
      upper_bounds[x].infinity_mass *= factor;
    }
  }
  return kept;
}

}  // namespace noiselearn
