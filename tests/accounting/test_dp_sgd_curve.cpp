// DpSgdCurve (accounting/dp_sgd.hpp): DP-SGD's epsilon asked after one count of steps at a time, each count composed
// from the previous one and the steps since. Every answer is rigorous, so it overlaps dp_sgd_epsilon's bracket of the
// same count (two rigorous brackets of one value); asking the same count again gives the same bracket.
#include <catch2/catch.hpp>

#include "accounting/dp_sgd.hpp"
#include "core/errors.hpp"

using namespace noiselearn;

TEST_CASE("DP-SGD asked one count at a time: each bracket overlaps a fresh composition's, and counts only grow") {
  const double q = 0.01, delta = 1e-5;
  DpSgdCurve curve(1.0, q, delta);
  CHECK(curve.steps() == 0);
  double previous = 0.0;
  for (int64_t t : {100, 250, 251, 400}) {
    const EpsilonBracket e = curve.epsilon_after(t);
    const EpsilonBracket fresh = dp_sgd_epsilon(1.0, q, t, delta);
    INFO(t << " steps: [" << e.lower << ", " << e.upper << "], fresh [" << fresh.lower << ", " << fresh.upper << "]");
    CHECK(e.lower <= fresh.upper);
    CHECK(fresh.lower <= e.upper);
    CHECK(e.upper - e.lower <= 1e-4 * e.upper);
    CHECK(e.upper > previous);
    previous = e.upper;
  }
  const EpsilonBracket again = curve.epsilon_after(400);
  CHECK(again.upper == previous);
  CHECK_THROWS_AS(curve.epsilon_after(399), InputError);
  CHECK_THROWS_AS(DpSgdCurve(0.0, q, delta), InputError);
  CHECK_THROWS_AS(DpSgdCurve(1.0, q, 0.0), InputError);
}
