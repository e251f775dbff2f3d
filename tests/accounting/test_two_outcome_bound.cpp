// The two-outcome lower bound (accounting/two_outcome_bound.hpp) against enumeration: n releases of the pair
// (f, 1 - f) against (s, 1 - s), every one of the 2^n output sequences with its two probabilities, delta(eps) the sum
// of max(0, P(seq) - e^eps Q(seq)). The bound must be at most the enumeration and within its padding of it; its
// epsilon at delta must be below the enumeration's; a second mass that a double cannot hold (e^-5000) is kept as a
// logarithm, not read as an infinite loss.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "accounting/two_outcome_bound.hpp"

using namespace noiselearn;

namespace {

TwoOutcomeComposition pair_of(double log_fh, double log_fl, double log_sh, double log_sl, int64_t n) {
  TwoOutcomeComposition t;
  t.log_first_high = log_fh;
  t.log_first_low = log_fl;
  t.log_second_high = log_sh;
  t.log_second_low = log_sl;
  t.relative_error = 1e-15;
  t.compositions = n;
  return t;
}

// Every sequence of n outcomes, in logarithms (so that e^-5000 works): sum max(0, P - e^eps Q).
double enumerated_delta(const TwoOutcomeComposition& t, double eps) {
  const int n = static_cast<int>(t.compositions);
  long double sum = 0.0L;
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    const int k = __builtin_popcount(mask);
    const double log_p = (k ? k * t.log_first_high : 0.0) + (n - k ? (n - k) * t.log_first_low : 0.0);
    const double log_q = (k ? k * t.log_second_high : 0.0) + (n - k ? (n - k) * t.log_second_low : 0.0);
    if (log_p > eps + log_q) sum += std::exp(log_p) * -std::expm1(eps + log_q - log_p);
  }
  return static_cast<double>(sum);
}

}  // namespace

TEST_CASE("two outcomes: n releases of a two-outcome pair against the enumeration of every output sequence",
          "[accountant][two-outcome]") {
  // Randomized response at eps0 = 1; an asymmetric pair; one with a distinguishing outcome (s = 0 on H).
  const double e = std::exp(1.0);
  const std::vector<TwoOutcomeComposition> pairs{
      pair_of(std::log(e / (1 + e)), std::log(1 / (1 + e)), std::log(1 / (1 + e)), std::log(e / (1 + e)), 1),
      pair_of(std::log(0.3), std::log(0.7), std::log(0.1), std::log(0.9), 1),
      pair_of(std::log(0.05), std::log(0.95), -std::numeric_limits<double>::infinity(), 0.0, 1),
  };
  for (const auto& base : pairs)
    for (int64_t n : {1, 2, 5, 12}) {
      TwoOutcomeComposition t = base;
      t.compositions = n;
      for (double eps : {0.0, 0.1, 0.5, 1.0, 3.0, 7.0}) {
        const double exact = enumerated_delta(t, eps);
        INFO("n " << n << ", eps " << eps << ": " << t.delta_lower(eps) << " against " << exact);
        CHECK(t.delta_lower(eps) <= exact);
        CHECK(t.delta_lower(eps) >= exact * (1.0 - 1e-9) - 1e-300);
      }
      // epsilon at delta: below the enumeration's (bisection on its curve), and close to it.
      for (double delta : {1e-1, 1e-3, 1e-6}) {
        double low = 0.0, high = 100.0;
        if (enumerated_delta(t, high) > delta) continue;  // infinite: the distinguishing outcome alone exceeds delta
        for (int i = 0; i < 200; ++i) {
          const double middle = 0.5 * (low + high);
          (enumerated_delta(t, middle) > delta ? low : high) = middle;
        }
        INFO("n " << n << ", delta " << delta);
        CHECK(t.epsilon_lower(delta) <= high);
        CHECK(t.epsilon_lower(delta) >= low - 1e-9);
        // A known lower bound above the answer is kept; one below it is improved on.
        CHECK(t.epsilon_lower(delta, high + 1.0) == high + 1.0);
        CHECK(t.epsilon_lower(delta, 0.5 * low) >= low - 1e-9);
      }
    }
  // The distinguishing outcome: P-mass 1 - 0.95^n of infinite loss, so epsilon is infinite below that delta.
  TwoOutcomeComposition distinguishing = pairs[2];
  distinguishing.compositions = 12;
  CHECK(distinguishing.epsilon_lower(0.1) == std::numeric_limits<double>::infinity());
  CHECK(distinguishing.delta_lower(1e6) >= (1.0 - std::pow(0.95, 12)) * (1.0 - 1e-9));
}

TEST_CASE("two outcomes: a second mass of e^-5000 is a finite loss of 5000 nats, not a distinguishing event",
          "[accountant][two-outcome]") {
  const TwoOutcomeComposition t = pair_of(std::log(0.5), std::log(0.5), -5000.0, std::log1p(-1e-300), 3);
  for (double eps : {4000.0, 10000.0, 14000.0, 15500.0}) {
    const double exact = enumerated_delta(t, eps);
    INFO("eps " << eps << ": " << t.delta_lower(eps) << " against " << exact);
    CHECK(t.delta_lower(eps) <= exact);
    CHECK(t.delta_lower(eps) >= exact * (1.0 - 1e-9));
  }
  CHECK(t.delta_lower(16000.0) == 0.0);  // above 3 x 5000 nats no outcome's loss reaches
  CHECK(t.epsilon_lower(0.1) < 15000.0);
}
