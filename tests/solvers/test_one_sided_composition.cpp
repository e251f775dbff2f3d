// The discrete TBL baselines of Xiao et al.'s Fig. 2 on the authors' grid (R step 10, sigma step 0.5, integer
// alpha 2 .. 25), T = 500, delta = 1e-5, target epsilon 4: the test vectors.
#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "solvers/one_sided_composition.hpp"

using namespace noiselearn;

TEST_CASE("Fig. 2 baselines at T = 500, delta = 1e-5, epsilon 4: TBL + advanced composition and TBL + HRDP", "[one-sided]") {
  DiscreteTblGrid grid;
  grid.max_range = 2000;
  grid.max_sigma = 60.0;
  const DiscreteTblChoice advanced = least_second_moment_discrete_tbl(500, 1e-5, 4.0, OneSidedComposition::kAdvanced, grid);
  REQUIRE(advanced.found);
  CHECK(advanced.range == 900);
  CHECK(advanced.sigma == 32.0);
  CHECK(advanced.second_moment == Approx(2.045e5).epsilon(5e-4));
  CHECK(advanced.epsilon <= 4.0);
  const DiscreteTblChoice hrdp = least_second_moment_discrete_tbl(500, 1e-5, 4.0, OneSidedComposition::kHybridRenyi, grid);
  REQUIRE(hrdp.found);
  CHECK(hrdp.range == 850);
  CHECK(hrdp.sigma == 30.0);
  CHECK(hrdp.second_moment == Approx(1.824e5).epsilon(5e-4));
  CHECK(hrdp.epsilon <= 4.0);
  CHECK(hrdp.second_moment < advanced.second_moment);
  CHECK_THROWS_AS(least_second_moment_discrete_tbl(0, 1e-5, 4.0, OneSidedComposition::kAdvanced), InputError);
}
