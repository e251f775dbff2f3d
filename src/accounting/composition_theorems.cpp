#include "accounting/composition_theorems.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "accounting/grid_minimisation.hpp"
#include "core/errors.hpp"
#include "core/log_math.hpp"

namespace noiselearn {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void check_single_release(double eps0, double delta0, int64_t k) {
  if (!(std::isfinite(eps0) && eps0 >= 0.0)) {
    throw InputError(fmt::format("single-release epsilon = {} must be finite and >= 0", eps0));
  }
  if (!(delta0 >= 0.0 && delta0 <= 1.0)) {
    throw InputError(fmt::format("single-release delta = {} must lie in [0, 1]", delta0));
  }
  if (k < 1) throw InputError(fmt::format("number of compositions k = {} must be >= 1", k));
}

void check_total_delta(double delta_total) {
  if (!(delta_total > 0.0 && delta_total < 1.0)) {
    throw InputError(fmt::format("total delta = {} must lie in (0, 1)", delta_total));
  }
}

// delta' = delta_total - k delta0, or 0 when it is only the rounding of that subtraction (10 * 1e-6 and 1e-5 differ
// by 1.7e-21 in float64: a "budget" of 1e-21 would give a meaningless eps'). 1e-12 relative is far above the
// rounding (~1e-16) and far below any deliberate split of a budget.
double delta_prime_of(double delta0, int64_t k, double delta_total) {
  const double delta_prime = delta_total - static_cast<double>(k) * delta0;
  return delta_prime > 1e-12 * delta_total ? delta_prime : 0.0;
}

// Dwork & Roth, Thm 3.20, or +inf when no delta' > 0 is left.
double advanced_epsilon_or_infinity(double eps0, double delta0, int64_t k, double delta_total) {
  const double kd = static_cast<double>(k);
  const double delta_prime = delta_prime_of(delta0, k, delta_total);
  if (!(delta_prime > 0.0)) return kInfinity;
  // e^{eps0} - 1 with expm1: for small eps0 it is ~eps0 and would otherwise lose its leading digits.
  return std::sqrt(2.0 * kd * -std::log(delta_prime)) * eps0 + kd * eps0 * std::expm1(eps0);
}

// log delta_rr(eps') = log sum_{l : (k-l) eps0 > eps' + l eps0} C(k,l) (e^{(k-l) eps0} - e^{eps' + l eps0})
//                      - k log(1 + e^{eps0}),
// the hockey-stick divergence of the k-fold randomized response with parameter eps0 (the delta0-free part of the
// Kairouz-Oh-Viswanath dominating pair). Each term is a log_diff_exp, so terms with close exponents keep their
// precision.
//
// Only the terms that matter are summed. t_l = log C(k, l) + (k - l) eps0 + log(1 - e^{eps' - (k - 2l) eps0}) is
// concave in l (log C(k, l) is, the middle term is linear, and log(1 - e^x) is concave and non-decreasing in l
// here), so the terms rise to one peak and fall. The scan starts at the binomial mode k / (1 + e^{eps0}) (or the
// last admissible l), walks up and down, and stops in each direction once a falling term is 60 below the largest
// seen: the rest (at most k terms, each below e^-60 of the largest) changes the sum by under 1e-20 relative. At
// k = 250,000 that is a few thousand terms instead of up to 125,000. log C(k, l) starts from lgamma_r (thread-safe,
// unlike std::lgamma) and follows the ratio recurrence C(k, l + 1) / C(k, l) = (k - l) / (l + 1).
double log_randomized_response_delta(double eps0, int64_t k, double epsilon_total) {
  if (eps0 == 0.0) return kNegativeInfinity;  // P = Q
  const double kd = static_cast<double>(k);
  const auto admissible = [&](int64_t l) {
    const double ld = static_cast<double>(l);
    return (kd - ld) * eps0 > epsilon_total + ld * eps0;
  };
  if (!admissible(0)) return kNegativeInfinity;  // the difference decreases in l: no term at all
  // The last admissible l, by bisection on the (monotone) condition.
  int64_t last = 0, beyond = k + 1;
  while (beyond - last > 1) {
    const int64_t middle = last + (beyond - last) / 2;
    (admissible(middle) ? last : beyond) = middle;
  }
  const int64_t start = std::clamp<int64_t>(static_cast<int64_t>(std::llround(kd / (1.0 + std::exp(eps0)))), 0, last);
  const auto log_gamma = [](double x) {
    int sign = 0;
    return lgamma_r(x, &sign);
  };
  const double log_binomial_start = log_gamma(kd + 1.0) - log_gamma(static_cast<double>(start) + 1.0) -
                                    log_gamma(kd - static_cast<double>(start) + 1.0);
  const auto term = [&](int64_t l, double log_binomial) {
    const double ld = static_cast<double>(l);
    return log_binomial + log_diff_exp((kd - ld) * eps0, epsilon_total + ld * eps0);
  };
  constexpr double kNegligible = 60.0;
  std::vector<double> terms;
  double largest = kNegativeInfinity;
  // Upwards from the start.
  double log_binomial = log_binomial_start, previous = kNegativeInfinity;
  for (int64_t l = start; l <= last; ++l) {
    const double t = term(l, log_binomial);
    terms.push_back(t);
    largest = std::max(largest, t);
    if (t < previous && t < largest - kNegligible) break;
    previous = t;
    log_binomial += std::log(kd - static_cast<double>(l)) - std::log(static_cast<double>(l) + 1.0);
  }
  // Downwards: C(k, l - 1) = C(k, l) l / (k - l + 1).
  log_binomial = log_binomial_start;
  previous = kNegativeInfinity;
  for (int64_t l = start - 1; l >= 0; --l) {
    log_binomial += std::log(static_cast<double>(l) + 1.0) - std::log(kd - static_cast<double>(l));
    const double t = term(l, log_binomial);
    terms.push_back(t);
    largest = std::max(largest, t);
    if (t < previous && t < largest - kNegligible) break;
    previous = t;
  }
  // log(1 + e^{eps0}) without overflow for large eps0.
  const double log_normaliser = eps0 + std::log1p(std::exp(-eps0));
  return log_sum_exp(terms) - kd * log_normaliser;
}

// Kairouz-Oh-Viswanath delta at eps' (header), or the floor 1 - (1 - delta0)^k for eps' -> inf.
// 1 - (1 - delta0)^k (1 - delta_rr) = -expm1(k log1p(-delta0) + log1p(-delta_rr)): both factors can be within
// 1e-15 of 1, where a direct product would lose every digit of delta.
double optimal_delta_unchecked(double eps0, double delta0, int64_t k, double epsilon_total) {
  const double kd = static_cast<double>(k);
  const double delta_rr = std::exp(log_randomized_response_delta(eps0, k, epsilon_total));
  if (delta0 == 1.0 || delta_rr >= 1.0) return 1.0;
  return -std::expm1(kd * std::log1p(-delta0) + std::log1p(-delta_rr));
}

double optimal_delta_floor(double delta0, int64_t k) {
  if (delta0 == 1.0) return 1.0;
  return -std::expm1(static_cast<double>(k) * std::log1p(-delta0));
}

// Smallest eps' with delta(eps') <= delta_total, or +inf if even eps' = k eps0 (beyond which delta stays at its
// floor) does not reach it.
double optimal_epsilon_or_infinity(double eps0, double delta0, int64_t k, double delta_total) {
  if (optimal_delta_floor(delta0, k) > delta_total) return kInfinity;
  if (optimal_delta_unchecked(eps0, delta0, k, 0.0) <= delta_total) return 0.0;
  // delta(eps') is continuous and strictly decreasing on [0, k eps0] and reaches the floor at k eps0. The bracket
  // [lower, upper] (delta above the target at lower, at or below it at upper) shrinks by regula falsi on
  // g = log delta - log delta_total, which is nearly linear in eps' (the Illinois variant halves the value kept at an
  // end that stays twice in a row), with a bisection whenever a step leaves more than half the bracket: the same
  // answer to 1e-12 relative as plain bisection, in about 10 evaluations of the sum instead of 40 (at k = 250,000
  // each is a few thousand terms; `evaluate --compare` searches the operating point over about 80 of these).
  double lower = 0.0, upper = static_cast<double>(k) * eps0;
  const double log_target = std::log(delta_total);
  // The side of a point is decided on delta itself (delta <= delta_total), g only places the next point.
  bool below = false;
  auto g = [&](double e) {
    const double d = optimal_delta_unchecked(eps0, delta0, k, e);
    below = d <= delta_total;
    return std::log(d) - log_target;
  };
  double g_lower = g(lower), g_upper = g(upper);  // about g_lower > 0 >= g_upper (-inf at a floor of 0)
  g_upper = std::min(g_upper, 0.0);
  g_lower = std::max(g_lower, 0.0);
  int kept = 0;  // +1: lower kept last step, -1: upper kept last step
  bool bisect = !(std::isfinite(g_lower) && std::isfinite(g_upper));
  for (int iteration = 0; iteration < 200 && upper - lower > 1e-12 * upper; ++iteration) {
    double middle = 0.5 * (lower + upper);
    if (!bisect) {
      const double secant = upper - g_upper * (upper - lower) / (g_upper - g_lower);
      if (secant > lower && secant < upper) middle = secant;
    }
    const double width = upper - lower;
    const double g_middle = g(middle);
    if (below) {
      upper = middle;
      g_upper = std::min(g_middle, 0.0);
      if (kept == 1) g_lower *= 0.5;
      kept = 1;
    } else {
      lower = middle;
      g_lower = std::max(g_middle, 0.0);
      if (kept == -1) g_upper *= 0.5;
      kept = -1;
    }
    bisect = !(upper - lower <= 0.5 * width) || !(std::isfinite(g_lower) && std::isfinite(g_upper));
  }
  return upper;  // rounded up: delta(upper) <= delta_total holds
}

using CompositionRule = double (*)(double eps0, double delta0, int64_t k, double delta_total);

CompositionOperatingPoint best_operating_point(const SingleReleaseDeltaCurve& single_release_delta, int64_t k,
                                               double delta_total, const OperatingPointOptions& options,
                                               CompositionRule rule) {
  options.validate();
  check_single_release(0.0, 0.0, k);
  check_total_delta(delta_total);
  auto delta0_of = [&single_release_delta](double eps0) {
    const double delta0 = single_release_delta(eps0);
    if (std::isnan(delta0)) {
      throw std::runtime_error(fmt::format("single-release delta curve is NaN at eps0 = {}", eps0));
    }
    return std::min(1.0, std::max(0.0, delta0));
  };
  auto composed_epsilon = [&](double eps0) { return rule(eps0, delta0_of(eps0), k, delta_total); };

  std::vector<double> grid{0.0};
  const double ratio = std::log(options.max_single_epsilon / options.min_single_epsilon);
  for (int i = 0; i < options.grid_points; ++i) {
    const double fraction = options.grid_points == 1 ? 0.0 : static_cast<double>(i) / (options.grid_points - 1);
    grid.push_back(options.min_single_epsilon * std::exp(ratio * fraction));
  }
  const GridMinimum best = minimise_on_grid(composed_epsilon, grid, options.refinement_iterations);
  if (best.value == kInfinity) return {kInfinity, kNaN, kNaN};
  return {best.value, best.argument, delta0_of(best.argument)};
}

}  // namespace

ApproximateDp basic_composition(double eps0, double delta0, int64_t k) {
  check_single_release(eps0, delta0, k);
  const double kd = static_cast<double>(k);
  return {kd * eps0, std::min(1.0, kd * delta0)};
}

double advanced_composition_epsilon(double eps0, double delta0, int64_t k, double delta_total) {
  check_single_release(eps0, delta0, k);
  check_total_delta(delta_total);
  if (!(delta_prime_of(delta0, k, delta_total) > 0.0)) {
    throw InputError(fmt::format("advanced composition: total delta {} leaves no delta' > 0 after k delta0 = {} * {}",
                                 delta_total, k, delta0));
  }
  return advanced_epsilon_or_infinity(eps0, delta0, k, delta_total);
}

double optimal_homogeneous_composition_delta(double eps0, double delta0, int64_t k, double epsilon_total) {
  check_single_release(eps0, delta0, k);
  if (!(epsilon_total >= 0.0) || std::isnan(epsilon_total)) {
    throw InputError(fmt::format("composed epsilon = {} must be >= 0", epsilon_total));
  }
  return optimal_delta_unchecked(eps0, delta0, k, epsilon_total);
}

double optimal_homogeneous_composition_epsilon(double eps0, double delta0, int64_t k, double delta_total) {
  check_single_release(eps0, delta0, k);
  check_total_delta(delta_total);
  const double floor = optimal_delta_floor(delta0, k);
  if (floor > delta_total) {
    throw InputError(
        fmt::format("optimal composition: total delta {} is below 1 - (1 - delta0)^k = {}, which no epsilon can remove",
                    delta_total, floor));
  }
  return optimal_epsilon_or_infinity(eps0, delta0, k, delta_total);
}

void OperatingPointOptions::validate() const {
  if (!(min_single_epsilon > 0.0 && std::isfinite(min_single_epsilon))) {
    throw InputError(fmt::format("min_single_epsilon = {} must be finite and > 0", min_single_epsilon));
  }
  if (!(max_single_epsilon > min_single_epsilon && std::isfinite(max_single_epsilon))) {
    throw InputError(fmt::format("max_single_epsilon = {} must be finite and > min_single_epsilon = {}",
                                 max_single_epsilon, min_single_epsilon));
  }
  if (grid_points < 2) throw InputError(fmt::format("grid_points = {} must be >= 2", grid_points));
  if (refinement_iterations < 0) {
    throw InputError(fmt::format("refinement_iterations = {} must be >= 0", refinement_iterations));
  }
}

CompositionOperatingPoint best_advanced_composition(const SingleReleaseDeltaCurve& single_release_delta, int64_t k,
                                                    double delta_total, const OperatingPointOptions& options) {
  return best_operating_point(single_release_delta, k, delta_total, options, advanced_epsilon_or_infinity);
}

CompositionOperatingPoint best_optimal_homogeneous_composition(const SingleReleaseDeltaCurve& single_release_delta,
                                                               int64_t k, double delta_total,
                                                               const OperatingPointOptions& options) {
  return best_operating_point(single_release_delta, k, delta_total, options, optimal_epsilon_or_infinity);
}

}  // namespace noiselearn
