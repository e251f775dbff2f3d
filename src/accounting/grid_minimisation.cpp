#include "accounting/grid_minimisation.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace noiselearn {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

double finite_or_infinity(double value) { return std::isnan(value) ? kInfinity : value; }

}  // namespace

GridMinimum minimise_on_grid(const std::function<double(double)>& f, const std::vector<double>& grid,
                             const std::vector<double>& values, int refinement_iterations) {
  if (grid.empty() || values.size() != grid.size()) {
    throw std::invalid_argument("minimise_on_grid: the grid is empty or its values do not match it");
  }
  for (size_t i = 1; i < grid.size(); ++i) {
    if (!(grid[i] > grid[i - 1])) throw std::invalid_argument("minimise_on_grid: the grid is not increasing");
  }
  size_t best = 0;
  for (size_t i = 1; i < grid.size(); ++i) {
    if (finite_or_infinity(values[i]) < finite_or_infinity(values[best])) best = i;
  }
  GridMinimum minimum{grid[best], finite_or_infinity(values[best])};
  if (minimum.value == kInfinity) return {std::numeric_limits<double>::quiet_NaN(), kInfinity};
  if (refinement_iterations <= 0 || grid.size() == 1) return minimum;

  // Golden section on [lower, upper], the bracket formed by the grid neighbours of the best point (the best
  // point itself when it is at an end of the grid).
  const double inverse_golden = (std::sqrt(5.0) - 1.0) / 2.0;
  double lower = grid[best == 0 ? 0 : best - 1];
  double upper = grid[best + 1 == grid.size() ? best : best + 1];
  double left = upper - inverse_golden * (upper - lower), right = lower + inverse_golden * (upper - lower);
  double f_left = finite_or_infinity(f(left)), f_right = finite_or_infinity(f(right));
  auto keep = [&minimum](double argument, double value) {
    if (value < minimum.value) minimum = {argument, value};
  };
  keep(left, f_left);
  keep(right, f_right);
  for (int iteration = 0; iteration < refinement_iterations; ++iteration) {
    if (f_left <= f_right) {
      upper = right;
      right = left;
      f_right = f_left;
      left = upper - inverse_golden * (upper - lower);
      if (!(left < right)) break;  // the bracket is down to rounding
      f_left = finite_or_infinity(f(left));
      keep(left, f_left);
    } else {
      lower = left;
      left = right;
      f_left = f_right;
      right = lower + inverse_golden * (upper - lower);
      if (!(right > left)) break;
      f_right = finite_or_infinity(f(right));
      keep(right, f_right);
    }
  }
  return minimum;
}

GridMinimum minimise_on_grid(const std::function<double(double)>& f, const std::vector<double>& grid,
                             int refinement_iterations) {
  std::vector<double> values;
  values.reserve(grid.size());
  for (double x : grid) values.push_back(f(x));
  return minimise_on_grid(f, grid, values, refinement_iterations);
}

}  // namespace noiselearn
