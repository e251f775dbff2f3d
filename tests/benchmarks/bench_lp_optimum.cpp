// bench_lp_optimum: the single-release LP optimum (solvers/lp_optimum.hpp) at the sizes the yardstick is used at, each
// beside its reference: the staircase setting's independently computed optimum (delta 0.05014528 at L1 <= 1.88613,
// symmetric and monotone), the truncated staircase on its own problem, and Xiao et al.'s Thm 1 for one-sided noise.
// Goals: the 1001- and 2001-point symmetric grids well under 10 s, a 401-point one-sided grid in about 1 s.
#include <cstdio>
#include <string>

#include "core/baselines.hpp"
#include "core/one_sided_baselines.hpp"
#include "core/utility.hpp"
#include "solvers/lp_optimum.hpp"

using namespace noiselearn;

namespace {

void report(const char* what, const LpOptimum& r, const char* yardstick) {
  std::printf("%-62s %s: delta %.10g, cost %.10g, %lld round(s), %zu shift(s), %.2f s   | %s\n", what, r.status.c_str(),
              r.delta, r.cost, static_cast<long long>(r.rounds), r.active_shifts.size(), r.seconds, yardstick);
}

}  // namespace

int main(int argc, char** argv) {
  const bool with_free = argc > 1 && std::string(argv[1]) == "--free";
  LpOptimumOptions o;
  o.grid = Grid::symmetric(5.0, 0.01);
  o.shift_cells = 100;
  o.epsilon = 0.3;
  o.cost_budget = 1.88613;
  o.symmetric = o.monotone = true;
  report("1001 points [-5, 5], s = 100 cells, least delta, symmetric+monotone", solve_lp_optimum(o),
         "reference 0.05014528 (independent LP)");
  const NoiseTable staircase = staircase_table(o.grid, 0.3, 1.0, staircase_optimal_gamma_l1(0.3), 5.0);
  char text[160];
  std::snprintf(text, sizeof text, "truncated staircase: delta %.10g at L1 %.10g",
                single_release_delta(staircase.probabilities(), 100, 0.3), l1_utility(staircase));
  LpOptimumOptions at_staircase = o;
  at_staircase.cost_budget = l1_utility(staircase);
  report("the same at the staircase's L1", solve_lp_optimum(at_staircase), text);
  LpOptimumOptions wide = o;
  wide.grid = Grid::symmetric(10.0, 0.01);
  report("2001 points [-10, 10], s = 100 cells, least delta, symmetric+monotone", solve_lp_optimum(wide),
         "goal well under 10 s");
  if (with_free) {
    LpOptimumOptions free = o;
    free.symmetric = free.monotone = false;
    report("1001 points, no shape constraints (every shift generated)", solve_lp_optimum(free),
           "the shaped optimum above");
  }
  for (double delta : {1e-4, 1e-6}) {
    LpOptimumOptions one_sided;
    one_sided.grid = Grid::spanning(0.0, 400.0, 1.0);
    one_sided.shift_cells = 1;
    one_sided.epsilon = 1.0;
    one_sided.objective = LpObjective::kLeastCost;
    one_sided.delta = delta;
    one_sided.cost = LpCost::kSquare;
    const NoiseTable thm1 = one_sided_optimum_table(one_sided.grid, 1.0, delta);
    std::snprintf(text, sizeof text, "Thm 1 (omega rounded up): E[e^2] %.10g, delta %.6g", second_moment(thm1),
                  single_release_delta(thm1.probabilities(), 1, 1.0));
    char what[80];
    std::snprintf(what, sizeof what, "401 points [0, 400] one-sided, least E[e^2], eps 1, delta %g", delta);
    report(what, solve_lp_optimum(one_sided), text);
  }
  return 0;
}
