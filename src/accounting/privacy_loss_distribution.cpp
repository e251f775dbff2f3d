#include "accounting/privacy_loss_distribution.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/directed_rounding.hpp"
#include "core/monotone_search.hpp"

namespace noiselearn {

std::string to_string(BoundKind bound) { return bound == BoundKind::kUpper ? "upper" : "lower"; }

double PrivacyLossDistribution::finite_mass() const {
  double sum = 0.0;
  for (double m : masses) sum += m;
  return sum;
}

namespace {

// Floating-point allowances, in the bound's direction (an upper bound must not shrink, a lower bound must not
// grow). A computed sum S over masses m_hat = m (1 + theta) + e bounds the exact sum T by
//   (S - ||e||) / (1 + rho) <= T <= (S + ||e||) / (1 - rho),
// and S itself, a sum of N positive terms each computed with a few roundings, is within (N + 16) u of its
// exact value (Higham, eq. 3.5). So: delta = (S * rounding_factor + allowance) / relative_divisor.
double allowance(const PrivacyLossDistribution& pld, double epsilon) {
  const double a = pld.absolute_allowance(epsilon);
  return pld.bound == BoundKind::kUpper ? a : -a;
}

double rounding_factor(const PrivacyLossDistribution& pld) {
  const double relative = static_cast<double>(pld.masses.size() + 16) * kUnitRoundoff;
  return pld.bound == BoundKind::kUpper ? 1.0 + relative : 1.0 - relative;
}

// For an upper bound whose relative error reached 1 (possible only far beyond the composition limit) the divisor
// is 0 or negative; the result is then NaN or negative and becomes the trivial bound below.
double relative_divisor(const PrivacyLossDistribution& pld) {
  if (pld.bound == BoundKind::kUpper && !(pld.relative_error < 1.0)) return std::numeric_limits<double>::quiet_NaN();
  return pld.bound == BoundKind::kUpper ? 1.0 - pld.relative_error : 1.0 + pld.relative_error;
}

// Into [0, 1], in the bound's direction when the arithmetic failed: a NaN (from inf - inf in an allowance, say)
// is the trivial bound, 1 for an upper and 0 for a lower bound, never a silent 0 (std::max(0.0, NaN) is 0).
double clamp_probability(double value, BoundKind bound) {
  if (std::isnan(value)) return bound == BoundKind::kUpper ? 1.0 : 0.0;
  return std::min(1.0, std::max(0.0, value));
}

}  // namespace

double PrivacyLossDistribution::absolute_allowance(double epsilon) const {
  if (!(tilt.lambda > 0.0)) return numerical_error;
  const double tilted = tilt.infinity_error + tilt.error * std::exp(-tilt.lambda * (epsilon - tilt.reference));
  return std::isnan(tilted) ? numerical_error : std::min(numerical_error, tilted);
}

namespace {
// eps on this PLD's grid for a query at eps (see loss_shift).
double grid_epsilon(const PrivacyLossDistribution& pld, double epsilon) {
  return pld.bound == BoundKind::kUpper ? epsilon - pld.loss_shift : epsilon + pld.loss_shift;
}
}  // namespace

namespace {

// The finite part of delta at eps on the grid: the sum of the non-negative terms (1 - e^{eps - l}) m over l > eps,
// each computed with expm1 to keep precision for l close to eps, from the top.
double finite_delta(const PrivacyLossDistribution& pld, double epsilon_on_grid) {
  double sum = 0.0;
  for (size_t i = pld.masses.size(); i-- > 0;) {
    const double l = pld.loss(i);
    if (l <= epsilon_on_grid) break;
    sum += -std::expm1(epsilon_on_grid - l) * pld.masses[i];
  }
  return sum;
}

// delta at eps on the grid from the finite part's computed sum: the infinity mass, the rounding allowances and the
// clamp. Non-decreasing in `sum` whenever rounding_factor and relative_divisor are positive (every operation is).
double finished_delta(const PrivacyLossDistribution& pld, double sum, double epsilon_on_grid) {
  return clamp_probability(
      ((pld.infinity_mass + sum) * rounding_factor(pld) + allowance(pld, epsilon_on_grid)) / relative_divisor(pld),
      pld.bound);
}

}  // namespace

double PrivacyLossDistribution::delta_for_epsilon(double epsilon) const {
  epsilon = grid_epsilon(*this, epsilon);
  return finished_delta(*this, finite_delta(*this, epsilon), epsilon);
}

std::vector<double> PrivacyLossDistribution::delta_for_epsilons(const std::vector<double>& epsilons) const {
  // Walk the grid from the top once. With P_j = sum_{k>j} m_k and G_j = sum_{k>j} m_k e^{l_{j+1} - l_k}
  // (all terms positive, no cancellation), delta on [l_j, l_{j+1}) is
  //   sum_{k>j} m_k (1 - e^{eps - l_k}) = P_j - e^{eps - l_{j+1}} G_j,
  // and at eps = l_j the value is P_j - e^{-step} G_j. To avoid cancellation when delta << P_j we instead
  // accumulate delta at grid points directly: delta(l_j) = delta(l_{j+1}) + (1 - e^{-step}) G_j.
  if (loss_shift > 0.0) {
    std::vector<double> on_grid(epsilons);
    for (double& e : on_grid) e = grid_epsilon(*this, e);
    PrivacyLossDistribution unshifted = *this;
    unshifted.loss_shift = 0.0;
    return unshifted.delta_for_epsilons(on_grid);
  }
  std::vector<size_t> order(epsilons.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return epsilons[a] > epsilons[b]; });
  std::vector<double> result(epsilons.size(), 0.0);
  const double one_minus_decay = -std::expm1(-loss_step);
  const double decay = std::exp(-loss_step);

  // State for the interval [l_j, l_{j+1}) with j = index of the current grid point.
  int64_t j = static_cast<int64_t>(masses.size()) - 1;  // start above the top: the interval [l_top, inf)
  double g = 0.0;              // G_j for the current j (masses above j, weighted by e^{l_{j+1} - l_k})
  double delta_at_next = 0.0;  // finite-part delta at l_{j+1}
  size_t q = 0;
  const double factor = rounding_factor(*this), divisor = relative_divisor(*this);
  while (q < order.size()) {
    const double eps = epsilons[order[q]];
    if (j >= 0 && eps < loss(static_cast<size_t>(j))) {
      // Move one grid point down: the mass at j joins the set above.
      const double mass_j = masses[static_cast<size_t>(j)];
      const double delta_at_j = delta_at_next + one_minus_decay * g;
      g = mass_j + decay * g;
      delta_at_next = delta_at_j;
      --j;
      continue;
    }
    // eps lies in [l_j, l_{j+1}) (or below the grid if j < 0): delta(eps) = delta(l_{j+1}) + (1 - e^{eps - l_{j+1}})
    // G_j.
    const double upper_point = loss(static_cast<size_t>(j + 1));
    const double value = delta_at_next + (-std::expm1(eps - upper_point)) * g;
    result[order[q]] = clamp_probability(((infinity_mass + value) * factor + allowance(*this, eps)) / divisor, bound);
    ++q;
  }
  return result;
}

namespace {

// The smallest eps with ((omega + finite(eps)) * factor + allowance) / divisor <= delta for a constant signed
// allowance (exact inversion of the piecewise function).
double invert_with_constant_allowance(const PrivacyLossDistribution& pld, double delta, double signed_allowance) {
  const auto& masses = pld.masses;
  const double infinity_mass = pld.infinity_mass, loss_step = pld.loss_step;
  const BoundKind bound = pld.bound;
  auto loss = [&](size_t i) { return pld.loss(i); };
  // What the finite part may contribute: ((omega + finite) * factor + allowance) / divisor <= delta.
  const double target = (delta * relative_divisor(pld) - signed_allowance) / rounding_factor(pld) - infinity_mass;
  // A failed arithmetic (NaN) gives the trivial answer: +inf for an upper bound, -inf (clamped to 0 by callers)
  // for a lower bound.
  if (std::isnan(target))
    return bound == BoundKind::kUpper ? std::numeric_limits<double>::infinity()
                                      : -std::numeric_limits<double>::infinity();
  if (target <= 0.0) return std::numeric_limits<double>::infinity();
  const double one_minus_decay = -std::expm1(-loss_step);
  const double decay = std::exp(-loss_step);
  // Descend until the finite-part delta at a grid point exceeds the target; the answer lies in the interval
  // above that point, where delta(eps) = delta(l_{j+1}) + (1 - e^{eps - l_{j+1}}) G_j is strictly decreasing.
  double g = 0.0, delta_at_next = 0.0;
  for (int64_t j = static_cast<int64_t>(masses.size()) - 1; j >= 0; --j) {
    const double delta_at_j = delta_at_next + one_minus_decay * g;
    if (delta_at_j > target) {
      // Solve delta_at_next + (1 - e^{x}) g = target for x = eps - l_{j+1} in (-step, 0].
      const double upper_point = loss(static_cast<size_t>(j + 1));
      const double x = std::log1p(-(target - delta_at_next) / g);
      return upper_point + x;
    }
    g = masses[static_cast<size_t>(j)] + decay * g;
    delta_at_next = delta_at_j;
  }
  // Below the grid, delta(eps) = delta(l_0) + (1 - e^{eps - l_0}) G_{-1}, which tends to the finite mass.
  const double lowest = loss(0);
  if (g <= 0.0) return -std::numeric_limits<double>::infinity();
  const double ratio = (target - delta_at_next) / g;
  if (ratio >= 1.0) return -std::numeric_limits<double>::infinity();
  return lowest + std::log1p(-ratio);
}

// Answers "delta_for_epsilon(eps) > delta?" exactly as delta_for_epsilon computes it, for the many eps of a bisection,
// without the O(N) sum of expm1s where the answer is clear. One pass from the top gives, for every grid index k,
//   G_k = sum_{i >= k} m_i e^{l_k - l_i}   and   D_k = sum_{i > k} m_i (1 - e^{l_k - l_i})
// (G_k = m_k + e^{-h} G_{k+1}, D_k = D_{k+1} + (1 - e^{-h}) G_{k+1}: positive terms only), and for eps in
// [l_{k-1}, l_k) the finite sum is D_k + (1 - e^{eps - l_k}) G_k. That estimate and delta_for_epsilon's own sum are
// both within a rigorous distance of the sum over the computed losses (the `slack` below), so when the
// estimate's whole interval, finished the same way (finished_delta is monotone), lies on one side of delta, so does
// delta_for_epsilon's value; otherwise the exact sum decides. A bisection therefore returns the same bits as with
// delta_for_epsilon at every step.
class DeltaComparison {
 public:
  explicit DeltaComparison(const PrivacyLossDistribution& pld) : pld_(pld) {
    const size_t n = pld.masses.size();
    // Positive factors only; otherwise finished_delta is not monotone and every question goes to the exact sum.
    usable_ = n > 0 && rounding_factor(pld) > 0.0 && relative_divisor(pld) > 0.0;
    if (!usable_) return;
    g_.assign(n + 1, 0.0);
    d_.assign(n + 1, 0.0);
    const double one_minus_decay = -std::expm1(-pld.loss_step), decay = std::exp(-pld.loss_step);
    for (size_t k = n; k-- > 0;) {
      g_[k] = pld.masses[k] + decay * g_[k + 1];
      d_[k] = d_[k + 1] + one_minus_decay * g_[k + 1];
    }
    span_ = std::max({std::abs(pld.loss(0)), std::abs(pld.loss(n - 1)), pld.loss_step});
    usable_ = std::isfinite(span_) && std::isfinite(g_[0]) && std::isfinite(d_[0]);
  }

  // delta_for_epsilon(eps) > delta, and delta_for_epsilon(eps) <= delta, as delta_for_epsilon computes them (for a NaN
  // delta both are false, as the comparisons are).
  bool exceeds(double epsilon, double delta) const {
    const double on_grid = grid_epsilon(pld_, epsilon);
    const Clear clear = clear_side(on_grid, delta);
    if (clear != Clear::kNo) return clear == Clear::kAbove;
    return finished_delta(pld_, finite_delta(pld_, on_grid), on_grid) > delta;
  }
  bool at_most(double epsilon, double delta) const {
    const double on_grid = grid_epsilon(pld_, epsilon);
    const Clear clear = clear_side(on_grid, delta);
    if (clear != Clear::kNo) return clear == Clear::kAtMost;
    return finished_delta(pld_, finite_delta(pld_, on_grid), on_grid) <= delta;
  }

 private:
  enum class Clear { kNo, kAtMost, kAbove };

  // Which side of delta delta_for_epsilon's value lies on, where the estimate's interval says so.
  Clear clear_side(double on_grid, double delta) const {
    if (!usable_) return Clear::kNo;
    // The first index whose computed loss is above eps: the terms delta_for_epsilon sums are those from it up.
    size_t low = 0, high = pld_.masses.size();
    while (low < high) {
      const size_t middle = low + (high - low) / 2;
      if (pld_.loss(middle) > on_grid)
        high = middle;
      else
        low = middle + 1;
    }
    const size_t k = low;
    if (k + 32 >= pld_.masses.size()) return Clear::kNo;  // a few terms are cheaper summed
    const double estimate = d_[k] + (-std::expm1(on_grid - pld_.loss(k))) * g_[k];
    // How far delta_for_epsilon's computed sum S and the estimate may lie from the exact sum over the computed
    // losses, T = sum_{i >= k} m_i (1 - e^{eps - loss(i)}), for the t = N - k terms:
    // - S: t additions, and per term a product, expm1 (within an ulp) and its rounded argument (which moves
    //   1 - e^y by at most u relatively): relatively within (t + 4) u of T;
    // - the estimate: the recurrences' few roundings per step and e^{-h}'s error raised to the t-th power,
    //   relatively within 6 t u + 10 u; and losses taken as loss(k) + (i - k) h instead of the computed loss(i),
    //   which moves each exponent y <= 0 by at most 3 u span and so each m_i e^y by at most
    //   3 u span m_i e^y: absolutely within 3 u span G_k.
    // Twice their sum covers the second-order terms.
    const double u = kUnitRoundoff;
    const double terms = static_cast<double>(pld_.masses.size() - k);
    const double slack = 2.0 * (u * (7.0 * terms + 16.0) * estimate + 3.0 * u * span_ * g_[k]) +
                         (8.0 * terms + 64.0) * std::numeric_limits<double>::denorm_min();
    if (finished_delta(pld_, estimate + slack, on_grid) <= delta) return Clear::kAtMost;
    if (finished_delta(pld_, std::max(0.0, estimate - slack), on_grid) > delta) return Clear::kAbove;
    return Clear::kNo;
  }

  const PrivacyLossDistribution& pld_;
  std::vector<double> g_, d_;
  double span_ = 0.0;  // the largest |loss| on the grid (at least the step)
  bool usable_ = false;
};

}  // namespace

double PrivacyLossDistribution::epsilon_for_delta(double delta) const {
  if (loss_shift > 0.0) {
    PrivacyLossDistribution unshifted = *this;
    unshifted.loss_shift = 0.0;
    const double on_grid = unshifted.epsilon_for_delta(delta);
    return bound == BoundKind::kUpper ? on_grid + loss_shift : on_grid - loss_shift;
  }
  const double sign = bound == BoundKind::kUpper ? 1.0 : -1.0;
  // The largest allowance (numerical_error) gives a valid answer in both directions: a larger eps for an upper
  // bound, a smaller one for a lower bound.
  const double conservative = invert_with_constant_allowance(*this, delta, sign * numerical_error);
  if (!(tilt.lambda > 0.0) || std::isnan(conservative)) return conservative;
  if (bound == BoundKind::kUpper) {
    // The upper curve U(eps) (allowance falling with eps) is non-increasing. No answer lies below the inversion
    // with the smallest allowance any eps can have (infinity_error + 0, or numerical_error); from there, expand
    // until U(high) <= delta, then bisect. high is always a point where U <= delta was checked.
    const double low_limit =
        invert_with_constant_allowance(*this, delta, std::min(numerical_error, tilt.infinity_error));
    if (!std::isfinite(low_limit) || std::isnan(low_limit)) return conservative;
    const DeltaComparison above(*this);
    double low = low_limit, high = conservative;
    if (!(std::isfinite(high) && high > low)) {
      double width = std::max(loss_step, 1e-9 * std::abs(low));
      high = low + width;
      for (int i = 0; i < 80 && above.exceeds(high, delta); ++i) {
        low = high;
        width *= 2.0;
        high = low_limit + width;
      }
      if (above.exceeds(high, delta)) return conservative;
    }
    return bisect(
               {low, high}, [&](double middle) { return !above.at_most(middle, delta); },
               [](double lo, double hi) { return hi - lo > 1e-14 * std::max(1.0, std::abs(hi)); }, 100)
        .high;
  }
  // Lower bound: the true eps is at least the smallest eps with L(eps) <= delta, and every constant allowance
  // A >= a(eps) on [e0, inf) gives a smaller one there; raise e0 while that stays true.
  double answer = conservative;
  for (int i = 0; i < 8 && std::isfinite(answer); ++i) {
    const double next = invert_with_constant_allowance(*this, delta, -absolute_allowance(answer));
    if (!(next > answer)) break;
    answer = next;
  }
  // When the plain allowance alone says nothing at this delta (a tilted composition by one FFT power, fft_power.hpp,
  // is exact only near its tilt), climb by bisection instead: every eps with L(eps) > delta lies below the true
  // eps(delta) (delta's lower curve L bounds the true delta, which does not increase with eps), and none lies above
  // the inversion with the smallest allowance any eps can have.
  if (!(numerical_error < delta)) {
    const DeltaComparison above(*this);
    double high = invert_with_constant_allowance(*this, delta, -std::min(numerical_error, tilt.infinity_error));
    // L > delta holds just below `high` where the allowance is small: step down from it until it does, then bisect.
    double low = -std::numeric_limits<double>::infinity();
    if (std::isfinite(high)) {
      double width = std::max(loss_step, 1e-9 * std::abs(high));
      for (int i = 0; i < 60; ++i, width *= 2.0) {
        const double candidate = high - width;
        if (candidate <= answer) break;
        if (above.exceeds(candidate, delta)) {
          low = candidate;
          answer = std::max(answer, candidate);
          break;
        }
      }
    }
    if (std::isfinite(high) && std::isfinite(low) && high > low) {
      const auto exceeds = [&](double middle) {
        if (!above.exceeds(middle, delta)) return false;
        answer = std::max(answer, middle);  // verified: L(middle) > delta
        return true;
      };
      bisect(
          {low, high}, exceeds, [](double lo, double hi) { return hi - lo > 1e-14 * std::max(1.0, std::abs(hi)); },
          100);
    }
  }
  return answer;
}

}  // namespace noiselearn
