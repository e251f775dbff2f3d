// The single-release LP optimum (solvers/lp_optimum.hpp): the yardstick. Checked against the staircase setting's
// independently computed optimum, against the closed forms it must never be worse than (the staircase mechanism on
// its own problem, Xiao et al.'s Thm 1 for one-sided noise), against enumeration of a lattice of the simplex on tiny
// grids, and for feasibility of what it writes (its certified delta at most the target).
#include <catch2/catch.hpp>

#include <cmath>
#include <iomanip>
#include <vector>

#include "accounting/pair_accountant.hpp"
#include "core/baselines.hpp"
#include "core/errors.hpp"
#include "core/one_sided_baselines.hpp"
#include "core/utility.hpp"
#include "solvers/lp_optimum.hpp"

using namespace noiselearn;

namespace {

LpOptimumOptions staircase_setting() {
  LpOptimumOptions o;
  o.grid = Grid::symmetric(5.0, 0.01);  // Sommer et al.'s staircase comparison: [-5, 5], step 0.01, s = 1, eps = 0.3
  o.shift_cells = 100;
  o.epsilon = 0.3;
  o.cost = LpCost::kAbsolute;
  return o;
}

}  // namespace

TEST_CASE("lp optimum: the staircase setting's symmetric monotone optimum is delta 0.05014528 at L1 <= 1.88613",
          "[solvers][lp]") {
  // The reference value comes from an independent LP (another solver) on the same problem, rounded to 8 digits.
  LpOptimumOptions o = staircase_setting();
  o.cost_budget = 1.88613;
  o.symmetric = o.monotone = true;
  const LpOptimum r = solve_lp_optimum(o);
  REQUIRE(r.feasible);
  CHECK(std::abs(r.delta - 0.05014528) <= 1e-7);
  CHECK(r.cost <= 1.88613);
  // The returned delta is the table's own, recomputed over every shift both ways.
  CHECK(r.delta == Approx(single_release_delta(r.probabilities, 100, 0.3)).epsilon(1e-15));
  // Without the shapes the LP is a relaxation: never higher.
  LpOptimumOptions free = o;
  free.symmetric = free.monotone = false;
  free.grid = Grid::symmetric(1.0, 0.01);  // a smaller instance of the same comparison, to keep the test quick
  free.cost_budget = 0.5;
  LpOptimumOptions shaped = free;
  shaped.symmetric = shaped.monotone = true;
  const LpOptimum a = solve_lp_optimum(free), b = solve_lp_optimum(shaped);
  REQUIRE(a.feasible);
  REQUIRE(b.feasible);
  CHECK(a.delta <= b.delta * (1.0 + 1e-9));
}

TEST_CASE("lp optimum: never worse than the staircase mechanism on the staircase's own problem", "[solvers][lp]") {
  LpOptimumOptions o = staircase_setting();
  const NoiseTable staircase = staircase_table(o.grid, 0.3, 1.0, staircase_optimal_gamma_l1(0.3), 5.0);
  const double staircase_delta = single_release_delta(staircase.probabilities(), 100, 0.3);
  o.cost_budget = l1_utility(staircase);
  o.symmetric = o.monotone = true;
  const LpOptimum r = solve_lp_optimum(o);
  REQUIRE(r.feasible);
  CHECK(r.delta <= staircase_delta * (1.0 + 1e-9));
  // and the truncated staircase is close to it (1.4e-6 relative in the independent LP's measurement)
  CHECK(staircase_delta <= r.delta * (1.0 + 1e-5));
}

TEST_CASE("lp optimum: never worse than Thm 1's one-sided optimum, and certified below its delta target",
          "[solvers][lp]") {
  for (const double delta : {1e-4, 1e-6})
    for (double epsilon : {0.5, 1.0, 2.0}) {
      INFO("epsilon " << epsilon << ", delta " << delta);
      LpOptimumOptions o;
      o.grid = Grid::spanning(0.0, 60.0, 1.0);
      o.shift_cells = 1;
      o.epsilon = epsilon;
      o.objective = LpObjective::kLeastCost;
      o.delta = delta;
      o.cost = LpCost::kSquare;
      // The written table is judged by the certified accountant's upper bound.
      o.delta_judge = [&](const std::vector<double>& p) {
        PairSpecification pair;
        return account(make_pair_family(NoiseTable(o.grid, p), pair), 1, AccountantOptions{}).delta_upper(epsilon);
      };
      const LpOptimum r = solve_lp_optimum(o);
      REQUIRE(r.feasible);
      CHECK(r.judged_delta <= delta);
      CHECK(r.delta <= delta);
      const NoiseTable thm1 = one_sided_optimum_table(Grid::spanning(0.0, 60.0, 1.0), epsilon, delta);
      REQUIRE(single_release_delta(thm1.probabilities(), 1, epsilon) <= delta * (1.0 + 1e-9));
      CHECK(r.cost <= second_moment(thm1) * (1.0 + 1e-9));
      // The certificate is within 1e-9 relative of the exact delta of these tables, whose ratios are e^eps to about
      // 1e-12 (the curve's kink sits at eps): the target needs tightening by far less than what the LP gains over
      // Thm 1.
      CHECK(r.margin <= 1e-7);
    }
}

TEST_CASE("lp optimum: no table on a lattice of the simplex beats it, and the lattice gets within its resolution",
          "[solvers][lp][brute-force]") {
  // 4 points, shift 1 cell, least delta at eps 0.4 under E|e| <= 0.6 on x = -1.5 .. 1.5 (step 1, so no point at 0).
  LpOptimumOptions o;
  o.grid = Grid{-1.5, 1.0, 4};
  o.shift_cells = 1;
  o.epsilon = 0.4;
  o.cost = LpCost::kAbsolute;
  o.cost_budget = 0.75;
  const LpOptimum r = solve_lp_optimum(o);
  REQUIRE(r.feasible);
  // The written table is optimal for the budget tightened by r.margin (so that its cost is within the budget after
  // rounding): compare it with the lattice under that budget too.
  const double budget = o.cost_budget * (1.0 - r.margin);
  const int m = 120;  // p = (a, b, c, d) / m
  double best = 1.0, best_tightened = 1.0;
  for (int a = 0; a <= m; ++a)
    for (int b = 0; a + b <= m; ++b)
      for (int c = 0; a + b + c <= m; ++c) {
        const std::vector<double> p{a / double(m), b / double(m), c / double(m), (m - a - b - c) / double(m)};
        const double cost = lp_cost_of(p, o);
        if (cost > o.cost_budget) continue;
        const double delta = single_release_delta(p, 1, 0.4);
        best = std::min(best, delta);
        if (cost <= budget) best_tightened = std::min(best_tightened, delta);
      }
  INFO("LP " << std::setprecision(17) << r.delta << ", lattice " << best << ", under the tightened budget "
             << best_tightened << ", margin " << r.margin);
  CHECK(r.delta <= best_tightened + 1e-14);  // double rounding only
  CHECK(r.delta <= best + 1e-9 * best);      // the margin costs at most a few 1e-12 here
  // delta is Lipschitz in p (each |p_y - e^eps p_{y-d}| moves by at most (1 + e^eps) per unit of l1 change), and a
  // feasible table is within 4 / m in l1 of a lattice point within the budget up to the same order.
  CHECK(best <= r.delta + 4.0 * (1.0 + std::exp(0.4)) * 4.0 / m);
}

TEST_CASE("lp optimum: an impossible delta is reported infeasible, a shift as wide as the grid is refused",
          "[solvers][lp][errors]") {
  LpOptimumOptions o;
  o.grid = Grid::symmetric(1.0, 1.0);  // 3 points: every edge cell is a distinguishing event for some shift
  o.shift_cells = 1;
  o.epsilon = 0.1;
  o.objective = LpObjective::kLeastCost;
  o.delta = 1e-6;
  const LpOptimum r = solve_lp_optimum(o);
  CHECK_FALSE(r.feasible);
  CHECK(r.status == "infeasible");
  o.shift_cells = 3;
  CHECK_THROWS_WITH(solve_lp_optimum(o), Catch::Contains("sensitivity is 3 grid cells"));
  o.shift_cells = 1;
  o.delta = 0.0;
  CHECK_THROWS_AS(solve_lp_optimum(o), InputError);
}

TEST_CASE("lp optimum: an epsilon beyond the LP's numerical range is refused, not a crash", "[solvers][lp][errors]") {
  LpOptimumOptions o;
  o.grid = Grid::symmetric(5.0, 1.0);
  o.cost_budget = 1.0;
  o.epsilon =
      41.0;  // e^41 coefficients: GLPK's scaling would fail (it aborts the process unless its error hook is set)
  CHECK_THROWS_WITH(solve_lp_optimum(o), Catch::Contains("must be in [0, 40]"));
  o.epsilon = 40.0;
  CHECK(solve_lp_optimum(o).feasible);
}
