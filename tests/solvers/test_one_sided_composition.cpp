// The discrete TBL baselines of Xiao et al.'s Fig. 2 on the authors' grid (R step 10, sigma step 0.5, integer
// alpha 2 .. 25), T = 500, delta = 1e-5, target epsilon 4: the test vectors.
#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "core/one_sided_baselines.hpp"
#include "solvers/one_sided_composition.hpp"

#include <cmath>
#include <utility>
#include <vector>

using namespace noiselearn;

TEST_CASE("Fig. 2 baselines at T = 500, delta = 1e-5, epsilon 4: TBL + advanced composition and TBL + HRDP",
          "[one-sided]") {
  DiscreteTblGrid grid;
  grid.max_range = 2000;
  grid.max_sigma = 60.0;
  const DiscreteTblChoice advanced =
      least_second_moment_discrete_tbl(500, 1e-5, 4.0, OneSidedComposition::kAdvanced, grid);
  REQUIRE(advanced.found);
  CHECK(advanced.range == 900);
  CHECK(advanced.sigma == 32.0);
  CHECK(advanced.second_moment == Approx(2.045e5).epsilon(5e-4));
  CHECK(advanced.epsilon <= 4.0);
  const DiscreteTblChoice hrdp =
      least_second_moment_discrete_tbl(500, 1e-5, 4.0, OneSidedComposition::kHybridRenyi, grid);
  REQUIRE(hrdp.found);
  CHECK(hrdp.range == 850);
  CHECK(hrdp.sigma == 30.0);
  CHECK(hrdp.second_moment == Approx(1.824e5).epsilon(5e-4));
  CHECK(hrdp.epsilon <= 4.0);
  CHECK(hrdp.second_moment < advanced.second_moment);
  CHECK_THROWS_AS(least_second_moment_discrete_tbl(0, 1e-5, 4.0, OneSidedComposition::kAdvanced), InputError);
}

TEST_CASE("the discrete TBL pair in closed form gives the general HRDP accountant's epsilon and the table's moments",
          "[one-sided]") {
  // Even R (mu on a grid point: two loss atoms), odd R (mu = R/2 inside a cell: a third atom), mu off the middle
  // (the two orders differ), mu at either end (one atom per order), and a narrow sigma (tiny end masses).
  struct Case {
    int64_t range;
    double mu, sigma;
  };
  const std::vector<Case> cases{{850, 425.0, 30.0}, {851, 425.5, 30.0}, {40, 13.3, 4.5},   {40, 0.0, 7.0},
                                {40, 40.0, 7.0},    {7, 2.75, 0.8},     {300, 150.0, 2.0}, {1, 0.5, 1.0}};
  const std::vector<double> alphas = paper_integer_alphas();
  for (const Case& c : cases) {
    CAPTURE(c.range, c.mu, c.sigma);
    const NoiseTable table = discrete_tbl_table(c.range, c.mu, c.sigma);
    const DiscreteTblPair pair = discrete_tbl_pair(c.range, c.mu, c.sigma);
    double second = 0.0;
    for (int64_t j = 0; j <= c.range; ++j) second += static_cast<double>(j * j) * table.p(j);
    CHECK(pair.second_moment == Approx(second).epsilon(1e-12));
    CHECK(pair.first_mass == Approx(table.p(0)).epsilon(1e-12));
    CHECK(pair.last_mass == Approx(table.p(c.range)).epsilon(1e-12));
    CHECK(pair.forward.size() <= 3);
    for (const auto& [t, delta] : std::vector<std::pair<int64_t, double>>{{1, 0.5}, {500, 1e-5}, {1000, 1e-8}}) {
      const HybridRenyiEpsilon general = hybrid_renyi_epsilon(table, 1, t, delta, alphas);
      const HybridRenyiEpsilon closed = discrete_tbl_hybrid_renyi_epsilon(pair, t, delta, alphas);
      CAPTURE(t, delta, general.epsilon, closed.epsilon);
      if (std::isinf(general.epsilon)) {
        CHECK(std::isinf(closed.epsilon));
      } else {
        CHECK(closed.epsilon == Approx(general.epsilon).epsilon(1e-11));
        CHECK(closed.alpha == general.alpha);
      }
      // One order, each alpha: the same as the per-order reference.
      for (double alpha : {2.0, 7.5, 25.0}) {
        const double one = hybrid_renyi_epsilon_at(table, 1, t, delta, alpha);
        const double mine = discrete_tbl_hybrid_renyi_epsilon(pair, t, delta, {alpha}).epsilon;
        if (std::isinf(one))
          CHECK(std::isinf(mine));
        else
          CHECK(mine == Approx(one).epsilon(1e-11));
      }
    }
  }
  CHECK_THROWS_AS(discrete_tbl_pair(10, 11.0, 1.0), InputError);
  CHECK_THROWS_AS(discrete_tbl_pair(10, 5.0, 0.0), InputError);
}
