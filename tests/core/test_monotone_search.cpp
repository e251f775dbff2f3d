#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "core/directed_rounding.hpp"
#include "core/monotone_search.hpp"

using namespace noiselearn;

TEST_CASE("bisect finds the boundary of a monotone predicate and keeps each end on its side", "[core][search]") {
  // x^2 < 2 below sqrt(2): the ends bracket it to the tolerance, low below and high above.
  const Bracket root = bisect(
      {1.0, 2.0}, [](double x) { return x * x < 2.0; }, [](double low, double high) { return high - low > 1e-12; });
  CHECK(root.low * root.low < 2.0);
  CHECK(root.high * root.high >= 2.0);
  CHECK(root.high - root.low <= 1e-12);
  CHECK(root.low == Approx(std::sqrt(2.0)).epsilon(1e-12));
}

TEST_CASE("bisect in log scale splits at the geometric mean", "[core][search]") {
  // The boundary 1e-7 in [1e-12, 1]: the first midpoint is sqrt(1e-12) = 1e-6, which is above it.
  int calls = 0;
  double first = 0.0;
  const Bracket b = bisect(
      {1e-12, 1.0},
      [&](double x) {
        if (calls++ == 0) first = x;
        return x < 1e-7;
      },
      [](double low, double high) { return high / low > 1.0 + 1e-10; }, 200, Midpoint::kGeometric);
  CHECK(first == Approx(1e-6).epsilon(1e-12));
  CHECK(b.low < 1e-7);
  CHECK(b.high >= 1e-7);
  CHECK(b.high / b.low <= 1.0 + 1e-10);
}

TEST_CASE("bisect halves at most max_halvings times and stops at adjacent doubles", "[core][search]") {
  int calls = 0;
  const auto below = [&](double x) {
    ++calls;
    return x < 0.3;
  };
  const auto always = [](double, double) { return true; };
  const Bracket ten = bisect({0.0, 1.0}, below, always, 10);
  CHECK(calls == 10);
  CHECK(ten.high - ten.low == std::ldexp(1.0, -10));  // each halving exact on [0, 1]
  // Asked to go on for ever, it stops where no double lies strictly between the ends.
  calls = 0;
  const Bracket tight = bisect({0.0, 1.0}, below, always);
  CHECK(std::nextafter(tight.low, 2.0) == tight.high);
  CHECK(tight.low < 0.3);
  CHECK(tight.high >= 0.3);
  CHECK(calls < 1100);
}

TEST_CASE("the unit roundoff, the machine epsilon and rounding a bound outwards", "[core][rounding]") {
  CHECK(kMachineEpsilon == std::numeric_limits<double>::epsilon());
  CHECK(kUnitRoundoff == std::numeric_limits<double>::epsilon() / 2.0);
  CHECK(1.0 + kUnitRoundoff == 1.0);  // a tie, rounded to even
  CHECK(1.0 + kMachineEpsilon > 1.0);
  CHECK(roundings(8.0) == 8.0 * kUnitRoundoff);
  // A quantity known to within gamma (relative) of its computed value lies in [lowered_by, raised_by].
  const double computed = 0.1, gamma = roundings(4.0);
  CHECK(raised_by(computed, gamma) > computed);
  CHECK(lowered_by(computed, gamma) < computed);
  CHECK(lowered_by(computed, 2.0) == 0.0);  // never below 0
}
