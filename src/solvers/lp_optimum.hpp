#pragma once
// The exact single-release optimum as a linear program: the yardstick every one-release result is measured against.
//
// For one release of table + noise with a query difference d in {-k, .., -1, 1, .., k} grid cells (the `any`
// relation for one release: both directions, every shift), the hockey-stick divergence of p against its shifted copy,
//   delta_d(eps; p) = sum_y (p(y) - e^eps p(y - d))_+,
// is convex and piecewise linear in p; delta(eps; p) = max_d delta_d(eps; p) (a shift of -d is the reverse direction
// of d, so both directions are covered). With t_{d,y} >= p(y) - e^eps p(y - d), t >= 0 and sum_y t_{d,y} <= delta it
// becomes linear, and so does any linear cost of p (E|e|, E[e^2], E[e], Pr[|e| > tau]):
//   least delta at eps under a cost budget:  min delta      s.t. the above, sum p = 1, cost(p) <= C, p >= 0;
//   least cost at (eps, delta):              min cost(p)    s.t. the above with delta fixed.
// The least eps at (cost, delta) is a bisection over eps of the second (its optimal cost is non-increasing in eps).
// Optional shape constraints: symmetric (p_i = p_{N-1-i}) and monotone away from the grid's centre.
//
// Solved by GLPK's dual simplex with constraint generation over the shifts (the ones whose divergence exceeds the
// current delta are added and the problem re-solved from its basis), with primal and dual tolerances of 1e-9. (No
// polish by GLPK's exact rational simplex from the final basis: it gives a table worse by 2e-12 on a 4-point case
// whose optimum is a lattice point.) The LP's objective is not the guarantee: the returned table is
// cleaned (negatives to 0, renormalised), its exact one-release divergence over every shift is recomputed here in long
// double, and the caller certifies it with the accountant like every other table.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/grid.hpp"

namespace noiselearn {

enum class LpCost { kAbsolute, kSquare, kMean, kTailProbability };  // E|e|, E[e^2], E[e], Pr[|e| > tau]
enum class LpObjective { kLeastDelta, kLeastCost };

std::string to_string(LpCost cost);
LpCost parse_lp_cost(const std::string& text);  // l1 | second-moment | mean | tail-probability

struct LpOptimumOptions {
  Grid grid;
  int64_t shift_cells = 1;  // k: every difference d in +-1 .. +-k cells
  double epsilon = 1.0;
  LpObjective objective = LpObjective::kLeastDelta;
  LpCost cost = LpCost::kAbsolute;
  double tail_threshold = 0.0;  // tau of LpCost::kTailProbability
  double cost_budget = 0.0;     // C (least delta)
  double delta = 0.0;           // delta (least cost)
  bool symmetric = false;       // p_i = p_{N-1-i} (the grid must be symmetric about 0)
  bool monotone = false;        // non-increasing away from the centre (with symmetric) or from 0
  // Least cost: the judge of the written table's delta, e.g. the certified accountant's upper bound; unset, the exact
  // recomputation here. The delta target is tightened by a relative margin (1e-11, 1e-10, .., 1e-3) until the judge's
  // value is at most `delta`.
  std::function<double(const std::vector<double>&)> delta_judge;

  void validate() const;  // InputError naming the field
};

struct LpOptimum {
  bool feasible = false;
  std::string status;                 // GLPK's, in words
  std::vector<double> probabilities;  // cleaned: non-negative, summing to 1
  double lp_objective = 0.0;          // the LP's optimal value (delta, or the cost)
  double delta = 0.0;                 // exact max_d delta_d(eps; p) of the cleaned table, every shift, long double sums
  double cost = 0.0;                  // cost of the cleaned table
  int64_t rounds = 0;                 // constraint-generation rounds
  std::vector<int64_t> active_shifts;  // the shifts whose constraints the final LP holds
  double margin = 0.0;                 // the relative tightening of the budget (or delta) the written table needed
  double judged_delta = 0.0;           // least cost: the judge's delta of the written table
  double seconds = 0.0;
};

// The exact one-release delta(eps) of a table under every difference in +-1 .. +-k cells (long double sums).
double single_release_delta(const std::vector<double>& p, int64_t shift_cells, double epsilon);
// cost(p) of the option's kind on the grid.
double lp_cost_of(const std::vector<double>& p, const LpOptimumOptions& options);

LpOptimum solve_lp_optimum(const LpOptimumOptions& options);

}  // namespace noiselearn
