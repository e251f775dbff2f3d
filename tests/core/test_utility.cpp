#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "core/errors.hpp"
#include "core/noise_table.hpp"
#include "core/utility.hpp"

using namespace noiselearn;

// Hand-made tables with dyadic probabilities: every product and sum below is exact in float64, so the
// expected values are compared with ==, except square roots (correctly rounded by std::sqrt).

TEST_CASE("utilities of a symmetric three-point table", "[utility]") {
  // x = -1, 0, 1 with p = 1/4, 1/2, 1/4.
  const NoiseTable table(Grid{-1.0, 1.0, 3}, {0.25, 0.5, 0.25});
  CHECK(l1_utility(table) == 0.5);     // 1/4 + 1/4
  CHECK(second_moment(table) == 0.5);  // 1/4 + 1/4
  CHECK(l2_utility(table) == std::sqrt(0.5));
  CHECK(tail_probability(table, 0.0) == 0.5);  // |e| > 0: both outer points
  CHECK(tail_probability(table, 0.5) == 0.5);
  CHECK(tail_probability(table, 1.0) == 0.0);  // strict: |e| = 1 is not beyond 1
  CHECK(max_abs_error(table) == 1.0);
}

TEST_CASE("utilities of a one-sided table include the bias", "[utility]") {
  // x = 0, 1, 2, 3 with p = 1/2, 1/4, 1/8, 1/8: mean 7/8, so E e^2 = 15/8 exceeds the variance 15/8 - 49/64.
  const NoiseTable table(Grid{0.0, 1.0, 4}, {0.5, 0.25, 0.125, 0.125});
  CHECK(l1_utility(table) == 0.875);     // 1/4 + 2/8 + 3/8
  CHECK(second_moment(table) == 1.875);  // 1/4 + 4/8 + 9/8
  CHECK(l2_utility(table) == std::sqrt(1.875));
  CHECK(tail_probability(table, 1.0) == 0.25);   // x = 2, 3
  CHECK(tail_probability(table, 2.5) == 0.125);  // x = 3
  CHECK(max_abs_error(table) == 3.0);
  CHECK(utility(table, UtilityKind::kL1) == l1_utility(table));
  CHECK(utility(table, UtilityKind::kL2) == l2_utility(table));
  CHECK(utility(table, UtilityKind::kSecondMoment) == second_moment(table));
}

TEST_CASE("max_abs_error ignores grid points without mass", "[utility]") {
  // A truncated table on x = -2..2: the outer points carry 0, so the worst-case error is 1, not 2.
  const NoiseTable table(Grid{-2.0, 1.0, 5}, {0.0, 0.25, 0.5, 0.25, 0.0});
  CHECK(max_abs_error(table) == 1.0);
  CHECK(tail_probability(table, 1.0) == 0.0);
  // A point mass at 0 has no error at all.
  CHECK(max_abs_error(NoiseTable(Grid{-1.0, 1.0, 3}, {0.0, 1.0, 0.0})) == 0.0);
}

TEST_CASE("tail_probability treats grid rounding as on the threshold", "[utility]") {
  // x_3 = 0 + 3 * 0.1 = 0.30000000000000004 is the grid point 0.3; Pr[|e| > 0.3] must not count it.
  const NoiseTable table(Grid{0.0, 0.1, 4}, {0.25, 0.25, 0.25, 0.25});
  REQUIRE(table.x(3) > 0.3);
  CHECK(tail_probability(table, 0.3) == 0.0);
  CHECK(tail_probability(table, 0.2) == 0.25);
  CHECK(tail_probability(table, std::numeric_limits<double>::infinity()) == 0.0);
  CHECK_THROWS_AS(tail_probability(table, -0.1), InputError);
  CHECK_THROWS_AS(tail_probability(table, std::nan("")), InputError);
}

TEST_CASE("a tiny tail probability keeps its value", "[utility]") {
  // 1 - (1 - 1e-300) is 0 in float64; summing the tail itself gives the 1e-300.
  const NoiseTable table(Grid{0.0, 1.0, 2}, {1.0, 1e-300});
  CHECK(tail_probability(table, 0.5) == 1e-300);
  CHECK(l1_utility(table) == 1e-300);
}

TEST_CASE("utilities of a wide uniform table match their closed forms", "[utility]") {
  // Uniform on x = -N..N: E|e| = N (N + 1) / (2N + 1), E e^2 = N (N + 1) / 3. With N = 500000 (10^6 terms)
  // the only error left after compensated summation is the rounding of p = 1/(2N + 1) and of the products:
  // a few ulps, hence 1e-14 relative.
  const int64_t half = 500000, size = 2 * half + 1;
  const std::vector<double> probabilities(static_cast<size_t>(size), 1.0 / static_cast<double>(size));
  const NoiseTable table(Grid{-static_cast<double>(half), 1.0, size}, probabilities);
  const double n = static_cast<double>(half);
  CHECK(l1_utility(table) == Approx(n * (n + 1.0) / (2.0 * n + 1.0)).epsilon(1e-14));
  CHECK(second_moment(table) == Approx(n * (n + 1.0) / 3.0).epsilon(1e-14));
  CHECK(tail_probability(table, n - 1.0) == Approx(2.0 / static_cast<double>(size)).epsilon(1e-15));
}

TEST_CASE("utility kinds parse and print", "[utility]") {
  for (UtilityKind kind :
       {UtilityKind::kL1, UtilityKind::kL2, UtilityKind::kSecondMoment, UtilityKind::kTailProbability})
    CHECK(parse_utility_kind(to_string(kind)) == kind);
  CHECK(to_string(UtilityKind::kSecondMoment) == "second-moment");
  CHECK_THROWS_WITH(parse_utility_kind("L1"), Catch::Contains("l1") && Catch::Contains("second-moment"));
}
