#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "core/grid.hpp"

using namespace noiselearn;

TEST_CASE("a length is a whole number of steps only within the relative tolerance", "[grid]") {
  CHECK(whole_steps(1.0, 1.0 / 60.0, "s") == 60);
  CHECK(whole_steps(0.3, 0.1, "s") == 3);  // 0.3/0.1 = 2.9999999999999996 in floating point
  CHECK_THROWS_AS(whole_steps(1.0, 0.3, "sensitivity 1"), InputError);
  CHECK_THROWS_WITH(whole_steps(1.0, 0.3, "sensitivity 1"), Catch::Contains("sensitivity 1"));
  // 1e-9 relative is accepted, 1e-7 is not.
  CHECK(whole_steps(1.0 + 1e-10, 0.5, "s") == 2);
  CHECK_THROWS_AS(whole_steps(1.0 + 1e-7, 0.5, "s"), InputError);
}

TEST_CASE("symmetric grids put a point at 0 and at both ends", "[grid]") {
  const Grid grid = Grid::symmetric(5.0, 0.01);
  CHECK(grid.size == 1001);
  CHECK(grid.x(500) == Approx(0.0).margin(1e-12));
  CHECK(grid.last() == Approx(5.0));
  CHECK(grid.is_symmetric());
  CHECK_FALSE(Grid::spanning(0.0, 5.0, 0.01).is_symmetric());
  CHECK_THROWS_AS(Grid::symmetric(1.0, 0.3), InputError);
}

TEST_CASE("invalid grids are rejected", "[grid]") {
  CHECK_THROWS_AS((Grid{0.0, 0.0, 3}.validate()), InputError);
  CHECK_THROWS_AS((Grid{0.0, -1.0, 3}.validate()), InputError);
  CHECK_THROWS_AS((Grid{0.0, 1.0, 0}.validate()), InputError);
  CHECK_THROWS_AS((Grid{std::nan(""), 1.0, 3}.validate()), InputError);
}
