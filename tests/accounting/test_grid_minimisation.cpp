// Grid search with golden-section refinement: finds a smooth minimum between grid points, never returns worse than
// the grid's best point, and handles infeasible (+inf / NaN) regions.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "accounting/grid_minimisation.hpp"

using namespace noiselearn;

namespace {
std::vector<double> integers(int first, int last) {
  std::vector<double> grid;
  for (int i = first; i <= last; ++i) grid.push_back(i);
  return grid;
}
}  // namespace

TEST_CASE("golden-section refinement finds a smooth minimum between grid points", "[grid-minimisation]") {
  auto shifted_parabola = [](double x) { return (x - M_PI) * (x - M_PI) + 1.0; };
  const GridMinimum minimum = minimise_on_grid(shifted_parabola, integers(0, 10), 80);
  CHECK(minimum.argument == Approx(M_PI).epsilon(1e-7));  // a quadratic minimum is located to ~sqrt(machine eps)
  CHECK(minimum.value == Approx(1.0).epsilon(1e-15));
  const GridMinimum grid_only = minimise_on_grid(shifted_parabola, integers(0, 10), 0);
  CHECK(grid_only.argument == 3.0);
}

TEST_CASE("the refined minimum is never worse than the best grid point", "[grid-minimisation]") {
  // Not unimodal within the bracket: golden section may miss the finer dips, but it only ever keeps improvements.
  auto wiggly = [](double x) { return std::sin(7.0 * x) + 0.1 * x; };
  const std::vector<double> grid = integers(0, 20);
  double grid_best = std::numeric_limits<double>::infinity();
  for (double x : grid) grid_best = std::min(grid_best, wiggly(x));
  const GridMinimum minimum = minimise_on_grid(wiggly, grid, 80);
  CHECK(minimum.value <= grid_best);
  CHECK(minimum.value == wiggly(minimum.argument));
}

TEST_CASE("infeasible parameters: +inf and NaN are never chosen", "[grid-minimisation]") {
  auto feasible_above_four = [](double x) { return x < 4.0 ? std::numeric_limits<double>::infinity() : x; };
  const GridMinimum minimum = minimise_on_grid(feasible_above_four, integers(0, 10), 80);
  CHECK(minimum.value == Approx(4.0).epsilon(1e-12));
  auto nowhere = [](double) { return std::nan(""); };
  const GridMinimum none = minimise_on_grid(nowhere, integers(0, 3), 80);
  CHECK(none.value == std::numeric_limits<double>::infinity());
  CHECK(std::isnan(none.argument));
}
