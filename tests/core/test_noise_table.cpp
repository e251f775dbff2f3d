#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "core/errors.hpp"
#include "core/noise_table.hpp"

using namespace noiselearn;

namespace {
// x = -2, -1, 0, 1, 2
const Grid kFivePoints{-2.0, 1.0, 5};
// x = -1.5, -0.5, 0.5, 1.5: symmetric without a point at 0
const Grid kFourPoints{-1.5, 1.0, 4};
// x = 0, 1, 2, 3
const Grid kOneSided{0.0, 1.0, 4};
constexpr double kEps = std::numeric_limits<double>::epsilon();
}  // namespace

TEST_CASE("a valid table keeps its grid and probabilities", "[noise_table]") {
  const NoiseTable table(kFivePoints, {0.125, 0.25, 0.25, 0.25, 0.125});
  CHECK(table.size() == 5);
  CHECK(table.x(0) == -2.0);
  CHECK(table.x(4) == 2.0);
  CHECK(table.p(1) == 0.25);
  CHECK(table.grid().step == 1.0);
}

TEST_CASE("validation names the first bad entry", "[noise_table]") {
  const double nan = std::nan("");
  // Entry 2 (x = 0) is NaN: both find_table_problem and the constructor point at it.
  const std::vector<double> with_nan = {0.25, 0.25, nan, 0.25, 0.25};
  const auto problem = find_table_problem(kFivePoints, with_nan);
  REQUIRE(problem);
  REQUIRE(problem->index);
  CHECK(*problem->index == 2);
  CHECK_THROWS_WITH(NoiseTable(kFivePoints, with_nan),
                    Catch::Contains("entry 2") && Catch::Contains("x = 0") && Catch::Contains("not finite"));
  CHECK_THROWS_WITH(NoiseTable(kFivePoints, {0.25, 0.25, std::numeric_limits<double>::infinity(), 0.25, 0.25}),
                    Catch::Contains("entry 2"));
  // A negative entry (x = -1) is reported even though the sum is 1.
  CHECK_THROWS_WITH(NoiseTable(kFivePoints, {0.5, -0.25, 0.25, 0.25, 0.25}),
                    Catch::Contains("entry 1") && Catch::Contains("x = -1") && Catch::Contains("negative"));
  // The first problem wins: entry 0 is negative before entry 3 is NaN.
  const auto first = find_table_problem(kFivePoints, {-0.1, 0.4, 0.4, nan, 0.3});
  REQUIRE(first);
  CHECK(first->index == std::optional<int64_t>(0));
}

TEST_CASE("the probabilities must sum to 1 within 1e-12", "[noise_table]") {
  // 1 + 5e-13 is inside the tolerance, 1 + 2e-12 and 1 - 2e-12 are not (the sum is compensated, so the
  // rounding of five additions, ~1e-16, cannot decide either case).
  CHECK_NOTHROW(NoiseTable(kFivePoints, {0.125, 0.25, 0.25 + 5e-13, 0.25, 0.125}));
  CHECK_THROWS_AS(NoiseTable(kFivePoints, {0.125, 0.25, 0.25 + 2e-12, 0.25, 0.125}), InputError);
  CHECK_THROWS_WITH(NoiseTable(kFivePoints, {0.125, 0.25, 0.25 - 2e-12, 0.25, 0.125}), Catch::Contains("sum"));
  const auto problem = find_table_problem(kFivePoints, {0.2, 0.2, 0.2, 0.2, 0.3});
  REQUIRE(problem);
  CHECK_FALSE(problem->index);  // a problem of the table as a whole
}

TEST_CASE("the number of probabilities must match the grid", "[noise_table]") {
  CHECK_THROWS_WITH(NoiseTable(kFivePoints, {0.5, 0.5}),
                    Catch::Contains("5 points") && Catch::Contains("2 probabilities"));
  CHECK_THROWS_AS(NoiseTable(Grid{0.0, 0.0, 2}, {0.5, 0.5}), InputError);  // invalid grid (step 0)
}

TEST_CASE("the support kind is inferred from grid and probabilities", "[noise_table]") {
  CHECK(NoiseTable(kFivePoints, {0.125, 0.25, 0.25, 0.25, 0.125}).support_kind() == SupportKind::kSymmetric);
  CHECK(NoiseTable(kFourPoints, {0.125, 0.375, 0.375, 0.125}).support_kind() == SupportKind::kSymmetric);
  // Mass only on x >= 0, on a symmetric grid or a one-sided one.
  CHECK(NoiseTable(kFivePoints, {0.0, 0.0, 0.5, 0.25, 0.25}).support_kind() == SupportKind::kOneSided);
  CHECK(NoiseTable(kOneSided, {0.25, 0.25, 0.25, 0.25}).support_kind() == SupportKind::kOneSided);
  // Mass below 0 without mirror symmetry.
  CHECK(NoiseTable(kFivePoints, {0.25, 0.25, 0.25, 0.25, 0.0}).support_kind() == SupportKind::kGeneral);
  CHECK(NoiseTable(Grid{-1.0, 1.0, 4}, {0.25, 0.25, 0.25, 0.25}).support_kind() == SupportKind::kGeneral);
  // Mirror symmetry is judged up to rounding (4 ulps): 1 ulp apart is symmetric, 1e-10 relative is not.
  const double q = 0.25;
  CHECK(NoiseTable(kFivePoints, {q * (1 + kEps), 0.25, 0.0, 0.25, q}, std::nullopt).support_kind() ==
        SupportKind::kSymmetric);
  CHECK(NoiseTable(kFivePoints, {q * (1 + 1e-10), 0.25, 0.0, 0.25, q * (1 - 1e-10)}).support_kind() ==
        SupportKind::kGeneral);
}

TEST_CASE("a declared support kind must be true of the data", "[noise_table]") {
  const std::vector<double> asymmetric = {0.25, 0.25, 0.25, 0.25, 0.0};
  CHECK_THROWS_WITH(NoiseTable(kFivePoints, asymmetric, SupportKind::kSymmetric),
                    Catch::Contains("declared symmetric") && Catch::Contains("general"));
  CHECK_THROWS_WITH(NoiseTable(kFivePoints, asymmetric, SupportKind::kOneSided), Catch::Contains("declared one-sided"));
  // "general" is true of every table, and a declared kind that holds is kept (even if another also holds).
  CHECK(NoiseTable(kFivePoints, {0.125, 0.25, 0.25, 0.25, 0.125}, SupportKind::kGeneral).support_kind() ==
        SupportKind::kGeneral);
  CHECK(NoiseTable(kFivePoints, {0.0, 0.0, 1.0, 0.0, 0.0}, SupportKind::kOneSided).support_kind() ==
        SupportKind::kOneSided);
  CHECK(NoiseTable(kFivePoints, {0.0, 0.0, 1.0, 0.0, 0.0}).support_kind() == SupportKind::kSymmetric);
  CHECK_THROWS_AS(NoiseTable(kOneSided, {0.25, 0.25, 0.25, 0.25}, SupportKind::kSymmetric), InputError);
}

TEST_CASE("support kinds parse and print", "[noise_table]") {
  for (SupportKind kind : {SupportKind::kSymmetric, SupportKind::kGeneral, SupportKind::kOneSided})
    CHECK(parse_support_kind(to_string(kind)) == kind);
  CHECK_THROWS_WITH(parse_support_kind("two-sided"), Catch::Contains("symmetric") && Catch::Contains("one-sided"));
}

TEST_CASE("is_symmetric_monotone: symmetric and non-increasing away from 0", "[noise_table]") {
  CHECK(NoiseTable(kFivePoints, {0.125, 0.25, 0.25, 0.25, 0.125}).is_symmetric_monotone());  // plateau allowed
  CHECK(NoiseTable(kFivePoints, {0.1, 0.2, 0.4, 0.2, 0.1}).is_symmetric_monotone());
  CHECK(NoiseTable(kFivePoints, {0.2, 0.2, 0.2, 0.2, 0.2}).is_symmetric_monotone());    // uniform
  CHECK(NoiseTable(kFivePoints, {0.0, 0.25, 0.5, 0.25, 0.0}).is_symmetric_monotone());  // truncated
  // Symmetric but rising away from 0 somewhere.
  CHECK_FALSE(NoiseTable(kFivePoints, {0.2, 0.1, 0.4, 0.1, 0.2}).is_symmetric_monotone());
  CHECK_FALSE(NoiseTable(kFivePoints, {0.25, 0.2, 0.1, 0.2, 0.25}).is_symmetric_monotone());
  // Monotone on each side but not symmetric.
  CHECK_FALSE(NoiseTable(kFivePoints, {0.1, 0.2, 0.4, 0.3, 0.0}).is_symmetric_monotone());
  // Even-size symmetric grid (no point at 0): the two central points are the mode.
  CHECK(NoiseTable(kFourPoints, {0.125, 0.375, 0.375, 0.125}).is_symmetric_monotone());
  CHECK(NoiseTable(kFourPoints, {0.25, 0.25, 0.25, 0.25}).is_symmetric_monotone());
  CHECK_FALSE(NoiseTable(kFourPoints, {0.375, 0.125, 0.125, 0.375}).is_symmetric_monotone());
  // An increase of 1 ulp is rounding, not a violation; 1e-12 relative is a violation.
  const double inner = 0.2;
  CHECK(NoiseTable(kFivePoints, {0.1, inner, 0.4, inner, 0.1}).is_symmetric_monotone());
  const double outer_by_ulp = inner * (1 + kEps), outer_by_1e12 = inner * (1 + 1e-12);
  REQUIRE(outer_by_ulp > inner);
  const double centre_ulp = 1.0 - 2 * inner - 2 * outer_by_ulp, centre_1e12 = 1.0 - 2 * inner - 2 * outer_by_1e12;
  CHECK(NoiseTable(kFivePoints, {outer_by_ulp, inner, centre_ulp, inner, outer_by_ulp}).is_symmetric_monotone());
  CHECK_FALSE(
      NoiseTable(kFivePoints, {outer_by_1e12, inner, centre_1e12, inner, outer_by_1e12}).is_symmetric_monotone());
}

TEST_CASE("compensated_sum recovers what naive summation loses", "[noise_table]") {
  // 1 + ten times 1e-16 - 1: each 1e-16 is below half an ulp of 1, so naive left-to-right summation returns 0.
  std::vector<double> values = {1.0};
  values.insert(values.end(), 10, 1e-16);
  values.push_back(-1.0);
  double naive = 0.0;
  for (double v : values) naive += v;
  CHECK(naive == 0.0);
  // Neumaier's compensation carries the lost low-order parts exactly (error ~ eps * 1e-15).
  CHECK(compensated_sum(values) == Approx(1e-15).epsilon(1e-12));
  CHECK(compensated_sum({}) == 0.0);
}
