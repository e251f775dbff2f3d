// Absurd and extreme inputs never give a false bound (issue 7, item 4). Invariant at every n, epsilon and delta:
// 0 <= lower <= upper <= 1 for delta(eps), 0 <= lower <= upper for eps(delta) (upper may be +inf, the trivial
// bound), and no NaN anywhere; beyond the accountant's limit on n, an InputError naming the limit.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "accounting/certificate.hpp"
#include "accounting/pair_accountant.hpp"
#include "core/baselines.hpp"
#include "core/errors.hpp"

using namespace noiselearn;

namespace {

void check_invariants(const PairBounds& bounds) {
  for (double eps : {0.0, 1e-300, 1e-9, 0.5, 1.0, 30.0, 1e3, 1e300}) {
    const double lower = bounds.delta_lower(eps), upper = bounds.delta_upper(eps);
    INFO("eps " << eps << " delta in [" << lower << ", " << upper << "]");
    CHECK(lower >= 0.0);
    CHECK(lower <= upper);
    CHECK(upper <= 1.0);
  }
  for (double delta : {1e-300, 1e-15, 1e-12, 1e-6, 0.5, 1.0 - 1e-16}) {
    const double lower = bounds.epsilon_lower(delta), upper = bounds.epsilon_upper(delta);
    INFO("delta " << delta << " eps in [" << lower << ", " << upper << "]");
    CHECK(lower >= 0.0);
    CHECK_FALSE(std::isnan(lower));
    CHECK_FALSE(std::isnan(upper));
    CHECK(lower <= upper);
  }
}

}  // namespace

TEST_CASE("issue 7 reproducer: the table 0.25/0.5/0.25 at huge n", "[accountant][extreme]") {
  // n = 1e15 printed delta in [0, 0] next to a distinguishing-event mass of 1; n = 3e14 printed lower 0.356 >
  // upper 0. Now n beyond the limit is refused, and at the limit the bounds are ordered and true: the composed
  // distinguishing-event mass 1 - 0.75^n is 1 to double precision, so delta(eps) is 1 for every eps.
  const NoiseTable table(Grid{-1.0, 1.0, 3}, {0.25, 0.5, 0.25});
  PairSpecification specification;
  const PairFamily family = make_pair_family(table, specification);
  CHECK_THROWS_AS(account(family, 1'000'000'000'000'000, {}), InputError);
  CHECK_THROWS_AS(account(family, 300'000'000'000'000, {}), InputError);
  CHECK_THROWS_AS(account(family, kMaxCompositions + 1, {}), InputError);
  for (int64_t n : {int64_t{1}, int64_t{1000}, int64_t{1'000'000}, kMaxCompositions}) {
    INFO("n " << n);
    const PairBounds bounds = account(family, n, {});
    check_invariants(bounds);
    if (n >= 1000) CHECK(bounds.delta_upper(5.0) == 1.0);
  }
}

TEST_CASE("extreme n, epsilon and delta on a Gaussian table keep 0 <= lower <= upper <= 1", "[accountant][extreme]") {
  const NoiseTable table = gaussian_table(Grid::symmetric(40.0, 0.5), 3.0);
  PairSpecification specification;
  const PairFamily family = make_pair_family(table, specification);
  // (n = 1e9 is covered on the three-point table above; on this table it takes half a minute.)
  for (int64_t n : {int64_t{1}, int64_t{7}, int64_t{10'000}}) {
    INFO("n " << n);
    check_invariants(account(family, n, {}));
  }
}

TEST_CASE("a certificate request beyond the limits is refused before any work", "[accountant][extreme]") {
  CertificateRequest request;
  request.compositions = kMaxCompositions + 1;
  CHECK_THROWS_AS(request.validate(), InputError);
  request.compositions = 1;
  request.curve_points = 1'000'000'000'000;  // evaluate --curve-points 1e12: refused, not a std::bad_alloc
  CHECK_THROWS_AS(request.validate(), InputError);
  request.curve_points = kMaxCurvePoints;
  CHECK_NOTHROW(request.validate());
}
