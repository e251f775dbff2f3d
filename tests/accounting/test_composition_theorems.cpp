// Composition theorems (basic, advanced, Kairouz-Oh-Viswanath optimal) and the single-release operating-point
// search: the textbook closed form, monotonicity, advanced vs basic, an enumeration of the KOV dominating pair, and
// the operating-point optimiser against every fixed eps0 of a grid.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "accounting/composition_theorems.hpp"
#include "brute_force.hpp"
#include "core/errors.hpp"
#include "core/log_math.hpp"

using namespace noiselearn;
using noiselearn::testing::brute_force_delta;

namespace {

// Balle & Wang 2018, Thm 8: the exact single-release delta(eps) of the Gaussian mechanism, mu = sensitivity/sigma.
double exact_gaussian_delta(double mu, double epsilon) {
  return std::exp(
      log_diff_exp(log_normal_cdf(0.5 * mu - epsilon / mu), epsilon + log_normal_cdf(-0.5 * mu - epsilon / mu)));
}

// The Kairouz-Oh-Viswanath dominating pair of (eps0, delta0)-DP on four outcomes.
struct FourOutcomePair {
  std::vector<double> p, q;
};
FourOutcomePair kov_pair(double eps0, double delta0) {
  const double high = (1.0 - delta0) * std::exp(eps0) / (1.0 + std::exp(eps0));
  const double low = (1.0 - delta0) / (1.0 + std::exp(eps0));
  return {{delta0, high, low, 0.0}, {0.0, low, high, delta0}};
}

double binomial(int k, int l) {
  double value = 1.0;
  for (int j = 1; j <= l; ++j) value = value * (k - l + j) / j;
  return value;
}

// The naive sum over every l, in long double, for large k: the reference of the
// truncated sum the library evaluates around the peak.
double naive_optimal_delta(double eps0, double delta0, int64_t k, double eps) {
  using Real = long double;
  const Real kd = static_cast<Real>(k);
  std::vector<Real> terms;
  Real log_binomial = 0;
  for (int64_t l = 0; l <= k; ++l) {
    const Real ld = static_cast<Real>(l), larger = (kd - ld) * eps0, smaller = eps + ld * eps0;
    if (!(larger > smaller)) break;
    terms.push_back(log_binomial + larger + std::log1p(-std::exp(smaller - larger)));
    log_binomial += std::log(kd - ld) - std::log(ld + 1);
  }
  if (terms.empty()) return static_cast<double>(-std::expm1(kd * std::log1p(-Real(delta0))));
  Real top = terms[0];
  for (Real t : terms) top = std::max(top, t);
  Real total = 0;
  for (Real t : terms) total += std::exp(t - top);
  const Real log_rr = top + std::log(total) - kd * (eps0 + std::log1p(std::exp(-Real(eps0))));
  const Real rr = std::exp(log_rr);
  return static_cast<double>(-std::expm1(kd * std::log1p(-Real(delta0)) + std::log1p(-rr)));
}

}  // namespace

TEST_CASE("advanced composition: the textbook closed form on a hand example", "[composition-theorems]") {
  // eps0 = 0.1, k = 100, delta' = 1e-5: sqrt(200 ln 1e5) 0.1 + 100 0.1 (e^0.1 - 1) = 4.798526 + 1.051709 = 5.850235.
  const double eps0 = 0.1, delta0 = 1e-7, delta_total = 100 * 1e-7 + 1e-5;
  CHECK(advanced_composition_epsilon(eps0, delta0, 100, delta_total) == Approx(5.850235092944558).epsilon(1e-10));
  const ApproximateDp basic = basic_composition(eps0, delta0, 100);
  CHECK(basic.epsilon == Approx(10.0).epsilon(1e-15));
  CHECK(basic.delta == Approx(1e-5).epsilon(1e-15));
  // Pure DP (delta0 = 0): all of delta_total goes to delta'.
  CHECK(advanced_composition_epsilon(0.1, 0.0, 100, 1e-5) == Approx(5.850235092944558).epsilon(1e-12));
}

TEST_CASE("advanced composition grows with k and beats basic composition for large k", "[composition-theorems]") {
  const double eps0 = 0.1, delta0 = 1e-10, delta_total = 1e-5;
  double previous = 0.0;
  for (int64_t k = 1; k <= 5000; k += 7) {
    const double eps = advanced_composition_epsilon(eps0, delta0, k, delta_total);
    INFO("k " << k);
    CHECK(eps > previous);
    previous = eps;
  }
  // One release: sqrt(2 ln(1/delta')) > 1, so the theorem is worse than the trivial bound eps0.
  CHECK(advanced_composition_epsilon(eps0, delta0, 1, delta_total) > basic_composition(eps0, delta0, 1).epsilon);
  // Many releases: O(sqrt(k)) + k eps0^2 against k eps0 (153.4 against 1000 here).
  const double large = advanced_composition_epsilon(eps0, delta0, 10000, delta_total);
  CHECK(large < basic_composition(eps0, delta0, 10000).epsilon);
  // delta' = 1e-5 - 1e4 * 1e-10 = 9e-6.
  CHECK(large == Approx(std::sqrt(2e4 * std::log(1.0 / 9e-6)) * 0.1 + 1e4 * 0.1 * std::expm1(0.1)).epsilon(1e-12));
}

TEST_CASE("composition theorems refuse budgets they cannot meet", "[composition-theorems]") {
  CHECK_THROWS_AS(advanced_composition_epsilon(0.1, 1e-6, 10, 1e-5), InputError);  // delta' = 0 (up to rounding)
  CHECK_THROWS_AS(advanced_composition_epsilon(0.1, 1e-6, 10, 5e-6), InputError);  // delta' < 0
  CHECK_THROWS_AS(advanced_composition_epsilon(-0.1, 0.0, 10, 1e-5), InputError);
  CHECK_THROWS_AS(advanced_composition_epsilon(0.1, 0.0, 0, 1e-5), InputError);
  CHECK_THROWS_AS(advanced_composition_epsilon(0.1, 0.0, 10, 1.0), InputError);
  CHECK_THROWS_AS(basic_composition(0.1, 1.5, 10), InputError);
  // 1 - (1 - 1e-6)^10 = 9.99996e-6 > 9e-6: no epsilon removes that mass.
  CHECK_THROWS_AS(optimal_homogeneous_composition_epsilon(0.1, 1e-6, 10, 9e-6), InputError);
  OperatingPointOptions backwards;
  backwards.max_single_epsilon = backwards.min_single_epsilon / 2.0;
  CHECK_THROWS_AS(best_advanced_composition([](double) { return 0.0; }, 10, 1e-6, backwards), InputError);
}

TEST_CASE("optimal homogeneous composition equals the enumerated k-fold dominating pair", "[composition-theorems]") {
  for (double eps0 : {0.3, 1.0}) {
    for (double delta0 : {0.0, 1e-3}) {
      const FourOutcomePair pair = kov_pair(eps0, delta0);
      for (int k = 1; k <= 6; ++k) {
        for (double eps : {0.0, 0.05, 0.4, 0.9, 1.3, 2.0, 3.1, 6.5}) {
          INFO("eps0 " << eps0 << " delta0 " << delta0 << " k " << k << " eps " << eps);
          const double exact = brute_force_delta(pair.p, pair.q, k, eps);
          CHECK(optimal_homogeneous_composition_delta(eps0, delta0, k, eps) ==
                Approx(exact).epsilon(1e-12).margin(1e-15));
        }
        // Kairouz-Oh-Viswanath, Thm 3.3, literally: at eps' = (k - 2i) eps0,
        // delta = 1 - (1 - delta0)^k (1 - sum_{l<i} C(k,l) (e^{(k-l) eps0} - e^{(k-2i+l) eps0}) / (1 + e^eps0)^k).
        for (int i = 0; i <= k / 2; ++i) {
          double delta_i = 0.0;
          for (int l = 0; l < i; ++l) {
            delta_i += binomial(k, l) * (std::exp((k - l) * eps0) - std::exp((k - 2 * i + l) * eps0));
          }
          delta_i /= std::pow(1.0 + std::exp(eps0), k);
          const double theorem = 1.0 - std::pow(1.0 - delta0, k) * (1.0 - delta_i);
          INFO("eps0 " << eps0 << " delta0 " << delta0 << " k " << k << " i " << i);
          CHECK(optimal_homogeneous_composition_delta(eps0, delta0, k, (k - 2 * i) * eps0) ==
                Approx(theorem).epsilon(1e-12).margin(1e-15));
        }
      }
      // One release: delta(eps0) = delta0, the (eps0, delta0) we started from.
      CHECK(optimal_homogeneous_composition_delta(eps0, delta0, 1, eps0) == Approx(delta0).margin(1e-16));
    }
  }
}

TEST_CASE("optimal homogeneous composition is never worse than advanced or basic composition",
          "[composition-theorems]") {
  const double delta_total = 1e-5;
  for (double eps0 : {0.01, 0.1, 0.5}) {
    for (int64_t k : {1, 10, 100, 1000, 20000, 250000}) {
      const double delta0 = k > 20000 ? 1e-12 : 1e-10;  // 1 - (1 - delta0)^k below delta_total
      const double optimal = optimal_homogeneous_composition_epsilon(eps0, delta0, k, delta_total);
      INFO("eps0 " << eps0 << " k " << k << " optimal " << optimal);
      CHECK(optimal <= advanced_composition_epsilon(eps0, delta0, k, delta_total) * (1.0 + 1e-12));
      CHECK(optimal <= basic_composition(eps0, delta0, k).epsilon * (1.0 + 1e-12));
      // The root finder returns the smallest epsilon (to 1e-12 relative) meeting delta_total.
      CHECK(optimal_homogeneous_composition_delta(eps0, delta0, k, optimal) <= delta_total);
      if (optimal > 0.0) {
        CHECK(optimal_homogeneous_composition_delta(eps0, delta0, k, optimal * (1.0 - 1e-9)) > delta_total);
      }
    }
  }
}

TEST_CASE("the best single-release operating point beats every fixed eps0 of a grid", "[composition-theorems]") {
  // The Gaussian mechanism with sigma = 5 (mu = 0.2), its exact single-release curve delta0(eps0).
  const double mu = 0.2, delta_total = 1e-6;
  const SingleReleaseDeltaCurve curve = [mu](double eps0) { return exact_gaussian_delta(mu, eps0); };
  for (int64_t k : {10, 1000}) {
    const CompositionOperatingPoint advanced = best_advanced_composition(curve, k, delta_total);
    const CompositionOperatingPoint optimal = best_optimal_homogeneous_composition(curve, k, delta_total);
    INFO("k " << k << " advanced " << advanced.epsilon << " at eps0 " << advanced.single_epsilon << ", optimal "
              << optimal.epsilon << " at eps0 " << optimal.single_epsilon);
    REQUIRE(std::isfinite(advanced.epsilon));
    REQUIRE(std::isfinite(optimal.epsilon));
    // The reported point is consistent: delta0 is the curve at eps0, and the theorem at that point gives epsilon.
    CHECK(advanced.single_delta == curve(advanced.single_epsilon));
    CHECK(advanced.epsilon ==
          advanced_composition_epsilon(advanced.single_epsilon, advanced.single_delta, k, delta_total));
    CHECK(optimal.epsilon ==
          optimal_homogeneous_composition_epsilon(optimal.single_epsilon, optimal.single_delta, k, delta_total));
    // A grid the optimiser never saw: 3000 equally spaced eps0 in (0, 6].
    for (int j = 1; j <= 3000; ++j) {
      const double eps0 = 6.0 * j / 3000.0, delta0 = curve(eps0);
      if (static_cast<double>(k) * delta0 < delta_total) {
        CHECK(advanced.epsilon <= advanced_composition_epsilon(eps0, delta0, k, delta_total) * (1.0 + 1e-12));
      }
      if (-std::expm1(static_cast<double>(k) * std::log1p(-delta0)) <= delta_total) {
        CHECK(optimal.epsilon <= optimal_homogeneous_composition_epsilon(eps0, delta0, k, delta_total) * (1.0 + 1e-12));
      }
    }
    CHECK(optimal.epsilon <= advanced.epsilon);
  }
  // k = 10: the exact epsilon of this composition is 2.9216 (Gilani et al., Fig. 1); every theorem is above it.
  const CompositionOperatingPoint optimal = best_optimal_homogeneous_composition(curve, 10, delta_total);
  CHECK(optimal.epsilon >= 2.9216);
  CHECK(best_advanced_composition(curve, 10, delta_total).epsilon >= optimal.epsilon);
}

TEST_CASE("no feasible single-release operating point gives an infinite epsilon", "[composition-theorems]") {
  // delta0(eps0) = 1e-3 everywhere: k delta0 = 1e-2 > delta_total for every eps0.
  const CompositionOperatingPoint point = best_advanced_composition([](double) { return 1e-3; }, 10, 1e-6);
  CHECK(point.epsilon == std::numeric_limits<double>::infinity());
  CHECK(std::isnan(point.single_epsilon));
}

TEST_CASE(
    "optimal homogeneous composition: the sum around its peak equals the naive sum over every l, up to k = 250,000",
    "[composition-theorems]") {
  for (const int64_t k : {int64_t{7}, int64_t{1000}, int64_t{250000}}) {
    for (const double eps0 : {1e-3, 0.05, 0.7}) {
      const double centre = static_cast<double>(k) * eps0 * std::tanh(eps0 / 2.0);  // the composed loss's mean
      const double spread = eps0 * std::sqrt(static_cast<double>(k));
      for (const double eps : {0.0, centre, centre + spread, centre + 4.0 * spread, centre + 12.0 * spread}) {
        if (eps > static_cast<double>(k) * eps0) continue;
        INFO("k " << k << " eps0 " << eps0 << " eps " << eps);
        const double naive = naive_optimal_delta(eps0, 1e-9, k, eps);
        // The recurrence for log C(k, l) accumulates rounding of its k-sized values (ulp 1.5e-11 at 1e5) in both.
        CHECK(optimal_homogeneous_composition_delta(eps0, 1e-9, k, eps) == Approx(naive).epsilon(1e-9).margin(1e-300));
      }
    }
  }
}
