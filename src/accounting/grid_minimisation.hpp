#pragma once
// Minimisation of a one-dimensional bound over a free parameter (the Renyi order alpha of an RDP -> DP
// conversion, the single-release epsilon of a composition theorem): a search over a grid, then a golden-section
// refinement between the neighbours of the best grid point.
//
// Every value of the free parameter gives a valid bound, so the minimiser never has to be the global one: it
// only has to be a value that was actually evaluated. The result is therefore never worse than the grid's
// best point, whatever the shape of the function (golden section assumes unimodality inside the bracket; if
// that fails, the refinement merely finds less).
#include <functional>
#include <vector>

namespace noiselearn {

struct GridMinimum {
  double argument;  // the parameter value that gave `value`; NaN if no evaluated value was finite
  double value;     // the smallest evaluated value; +inf if none was finite
};

// `grid` must be strictly increasing and non-empty; `values[i]` = f(grid[i]) (pass them when several
// functions share expensive grid evaluations). f may return +inf (an infeasible parameter); NaN is treated
// as +inf. `refinement_iterations` golden-section steps (0: grid only).
GridMinimum minimise_on_grid(const std::function<double(double)>& f, const std::vector<double>& grid,
                             const std::vector<double>& values, int refinement_iterations);
GridMinimum minimise_on_grid(const std::function<double(double)>& f, const std::vector<double>& grid,
                             int refinement_iterations);

}  // namespace noiselearn
