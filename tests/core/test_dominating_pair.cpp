#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "core/dominating_pair.hpp"
#include "core/errors.hpp"
#include "core/noise_table.hpp"

using namespace noiselearn;

namespace {
// Symmetric and non-increasing away from 0 on x = -3..3: the hypothesis of Sommer et al., Thm 15.
NoiseTable monotone_table() {
  return NoiseTable(Grid{-3.0, 1.0, 7}, {0.03125, 0.0625, 0.25, 0.3125, 0.25, 0.0625, 0.03125});
}
// Symmetric but bimodal: Thm 15 does not apply, every shift 1..k must be checked.
NoiseTable bimodal_table() {
  return NoiseTable(Grid{-3.0, 1.0, 7}, {0.0625, 0.25, 0.0625, 0.25, 0.0625, 0.25, 0.0625});
}

int64_t shift_of(const DominatingPair& pair, const NoiseTable& table) { return pair.grid.size - table.size(); }

double sum(const std::vector<double>& values) { return compensated_sum(values); }
}  // namespace

TEST_CASE("additive pair: A = p and B = p shifted up by k cells on the extended grid", "[dominating_pair]") {
  const NoiseTable table = monotone_table();
  const int64_t k = 2;
  const DominatingPair pair = additive_shift_pair(table, k);
  // The extended support is [origin, last + k h]: same origin and step, k more points.
  CHECK(pair.grid.origin == table.grid().origin);
  CHECK(pair.grid.step == table.grid().step);
  REQUIRE(pair.grid.size == table.size() + k);
  REQUIRE(pair.a.size() == static_cast<size_t>(pair.grid.size));
  REQUIRE(pair.b.size() == static_cast<size_t>(pair.grid.size));
  for (int64_t i = 0; i < table.size(); ++i) {
    CHECK(pair.a[static_cast<size_t>(i)] == table.p(i));      // A(x) = p(x)
    CHECK(pair.b[static_cast<size_t>(i + k)] == table.p(i));  // B(x + k h) = p(x)
  }
  for (int64_t i = 0; i < k; ++i) {
    CHECK(pair.b[static_cast<size_t>(i)] == 0.0);                 // nothing of B below origin + k h
    CHECK(pair.a[static_cast<size_t>(table.size() + i)] == 0.0);  // nothing of A above the old last point
  }
  CHECK(sum(pair.a) == Approx(1.0).epsilon(1e-15));
  CHECK(sum(pair.b) == Approx(1.0).epsilon(1e-15));
  // Shift 0 is the identical pair; a negative shift is refused.
  const DominatingPair same = additive_shift_pair(table, 0);
  CHECK(same.a == same.b);
  CHECK_THROWS_AS(additive_shift_pair(table, -1), InputError);
}

TEST_CASE("subsampled mixture pair: B = (1 - q) A + q shift(A) (Sommer et al., eq. 5)", "[dominating_pair]") {
  const NoiseTable table = monotone_table();
  const double q = 0.25;
  const DominatingPair shifted = additive_shift_pair(table, 1);
  const DominatingPair mixture = subsampled_mixture_pair(table, 1, q);
  REQUIRE(mixture.b.size() == shifted.b.size());
  CHECK(mixture.a == shifted.a);
  for (size_t i = 0; i < mixture.b.size(); ++i)
    CHECK(mixture.b[i] == Approx((1.0 - q) * shifted.a[i] + q * shifted.b[i]).epsilon(1e-15));
  // A convex combination of two distributions is a distribution.
  CHECK(sum(mixture.b) == Approx(1.0).epsilon(1e-15));
  // q = 1 (no subsampling) is the additive pair.
  CHECK(subsampled_mixture_pair(table, 1, 1.0).b == shifted.b);
  CHECK_THROWS_AS(subsampled_mixture_pair(table, 1, 0.0), InputError);
  CHECK_THROWS_AS(subsampled_mixture_pair(table, 1, 1.5), InputError);
  CHECK_THROWS_AS(subsampled_mixture_pair(table, 1, std::nan("")), InputError);
}

TEST_CASE("make_pair_family: auto picks one shift for symmetric-monotone tables, every shift otherwise",
          "[dominating_pair]") {
  PairSpecification specification;
  specification.sensitivity = 3.0;  // 3 cells
  SECTION("symmetric-monotone table: Thm 15, only the shift by the sensitivity") {
    const NoiseTable table = monotone_table();
    REQUIRE(table.is_symmetric_monotone());
    const PairFamily family = make_pair_family(table, specification);
    CHECK(family.sensitivity_cells == 3);
    CHECK(family.single_shift);
    REQUIRE(family.pairs.size() == 1);
    CHECK(shift_of(family.pairs[0], table) == 3);
    CHECK_THAT(family.justification, Catch::Contains("Thm 15"));
  }
  SECTION("not monotone: shifts 1, 2, 3") {
    const NoiseTable table = bimodal_table();
    REQUIRE_FALSE(table.is_symmetric_monotone());
    const PairFamily family = make_pair_family(table, specification);
    CHECK_FALSE(family.single_shift);
    REQUIRE(family.pairs.size() == 3);
    for (int64_t k = 1; k <= 3; ++k) CHECK(shift_of(family.pairs[static_cast<size_t>(k - 1)], table) == k);
    CHECK_THAT(family.justification, Catch::Contains("every shift"));
  }
  SECTION("not monotone but the sensitivity is one cell: a single shift (Lemma 14)") {
    specification.sensitivity = 1.0;
    const PairFamily family = make_pair_family(bimodal_table(), specification);
    CHECK(family.single_shift);
    REQUIRE(family.pairs.size() == 1);
    CHECK(shift_of(family.pairs[0], bimodal_table()) == 1);
  }
}

TEST_CASE("make_pair_family: explicit policies and the mixture kind", "[dominating_pair]") {
  PairSpecification specification;
  specification.sensitivity = 2.0;
  specification.shifts = ShiftPolicy::kAll;
  CHECK(make_pair_family(monotone_table(), specification).pairs.size() == 2);
  specification.shifts = ShiftPolicy::kSingle;
  const PairFamily single = make_pair_family(bimodal_table(), specification);
  REQUIRE(single.pairs.size() == 1);
  CHECK(shift_of(single.pairs[0], bimodal_table()) == 2);
  CHECK_THAT(single.justification, Catch::Contains("NOT symmetric-monotone"));
  // Mixture pairs carry the sampling rate: B = (1 - q) A + q shift_2(A).
  specification.kind = PairKind::kSubsampledMixture;
  specification.sampling_rate = 0.5;
  const PairFamily mixture = make_pair_family(monotone_table(), specification);
  REQUIRE(mixture.pairs.size() == 1);
  const DominatingPair expected = subsampled_mixture_pair(monotone_table(), 2, 0.5);
  CHECK(mixture.pairs[0].b == expected.b);
}

TEST_CASE("make_pair_family refuses a sensitivity that is not a whole number of steps", "[dominating_pair]") {
  const NoiseTable fine(Grid{-0.3, 0.1, 7}, {0.03125, 0.0625, 0.25, 0.3125, 0.25, 0.0625, 0.03125});
  PairSpecification specification;
  // 0.3 / 0.1 = 2.9999999999999996 in float64: within the 1e-9 relative tolerance, so 3 cells.
  specification.sensitivity = 0.3;
  CHECK(make_pair_family(fine, specification).sensitivity_cells == 3);
  // 0.15 is 1.5 cells: testing a shift of 1 cell would silently certify a smaller sensitivity (Sommer et al.
  // erratum), so the grid is refused and the message names the sensitivity.
  specification.sensitivity = 0.15;
  CHECK_THROWS_AS(make_pair_family(fine, specification), InputError);
  CHECK_THROWS_WITH(make_pair_family(fine, specification), Catch::Contains("sensitivity 0.15"));
  specification.sensitivity = 0.0;
  CHECK_THROWS_WITH(make_pair_family(fine, specification), Catch::Contains("sensitivity"));
  specification.sensitivity = -0.1;
  CHECK_THROWS_AS(make_pair_family(fine, specification), InputError);
}

TEST_CASE("shift policies and pair kinds parse and print", "[dominating_pair]") {
  for (ShiftPolicy policy : {ShiftPolicy::kAuto, ShiftPolicy::kSingle, ShiftPolicy::kAll})
    CHECK(parse_shift_policy(to_string(policy)) == policy);
  for (PairKind kind : {PairKind::kAdditive, PairKind::kSubsampledMixture})
    CHECK(parse_pair_kind(to_string(kind)) == kind);
  CHECK_THROWS_AS(parse_shift_policy("every"), InputError);
  CHECK_THROWS_AS(parse_pair_kind("mixture"), InputError);
}
