#pragma once
// The log-barrier interior-point method (Boyd and Vandenberghe, ch. 11) that solves the HRDP program
// (hybrid_renyi_program.hpp; hybrid_renyi_optimum.hpp states the problem and the method's guarantees): phase I
// minimises sigma subject to g_i <= sigma until a strictly feasible p is found (or infeasibility is proved), phase II
// minimises the cost subject to g_i <= 0 along the central path. Each damped Newton step solves the band Hessian plus
// its rank-k terms (Woodbury) and its border (the equality constraint and, in phase I, sigma) by a Schur complement.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "solvers/hybrid_renyi_optimum.hpp"
#include "solvers/hybrid_renyi_program.hpp"

namespace noiselearn {

// Solves the small dense system a x = b (n <= 6, a row-major n x n) by Gaussian elimination with partial pivoting,
// x in b; false if singular. The barrier's Woodbury and Schur systems and the optimum's multipliers are this size.
bool solve_small(std::vector<double> a, std::vector<double>& b, size_t n);

// One barrier method: phase I (minimise sigma s.t. g_i <= sigma) or phase II (minimise the cost s.t. g_i <= 0).
class HybridRenyiBarrier {
 public:
  HybridRenyiBarrier(const HybridRenyiProgram& program, const HybridRenyiOptimumOptions& options, bool phase_one)
      : pr_(program), o_(options), phase_one_(phase_one) {}

  struct Outcome {
    bool feasible_found = false;  // phase I: reached max g < 0
    bool infeasible = false;      // phase I: proved min max g > 0 (sigma - m/t > 0 on a centred point)
    bool centred = false;         // the last centering converged (so m / t_centred bounds the gap)
    double lower_bound = 0.0;     // phase I: sigma - m/t at the last centred point
    double t_centred = 0.0;       // the largest t whose centering converged (0: none)
    int64_t steps = 0;
  };

  // p (and sigma in phase I) are updated in place. A centering has converged when the Newton decrement
  // lambda^2 / 2 is below 1e-10, or below 1e-7 when the line search can no longer decrease phi in floating point.
  Outcome run(std::vector<double>& p, double& sigma, double t0, int64_t step_budget);

  double max_g(const HybridRenyiProgram::Values& v) const { return *std::max_element(v.g.begin(), v.g.end()); }

 private:
  struct NewtonStep {
    double decrement = 0.0;  // lambda^2 / 2 at the point the step started from
    bool moved = false;      // false: no step length decreased phi (or the system could not be solved)
  };
  // One damped Newton step on phi_t: its system assembled, solved, and a backtracking line search along the step.
  NewtonStep newton_step(std::vector<double>& p, double& sigma, HybridRenyiProgram::Values& v, double t);

  // The phases of newton_step (hybrid_renyi_barrier.cpp) and the system they assemble at the step's starting point.
  struct NewtonSystem;
  // The barrier arguments h and the scaled gradient of phi_t.
  void add_barrier_gradient(const std::vector<double>& p, double sigma, const HybridRenyiProgram::Values& v, double t,
                            NewtonSystem& system) const;
  // The band Hessian B and the rank-k columns U.
  void add_barrier_hessian(const std::vector<double>& p, const HybridRenyiProgram::Values& v,
                           NewtonSystem& system) const;
  // The border C (the equality constraint and, in phase I, sigma) and the right-hand sides.
  void add_border(const std::vector<double>& p, NewtonSystem& system) const;
  // The step (y in p, dsigma) by Woodbury on B + U U^T and a Schur complement on the border; false if singular.
  bool solve_newton_system(NewtonSystem& system, std::vector<double>& y, double& dsigma) const;
  // The backtracking line search along the step, from the Newton decrement's slope (p, sigma, v moved on success).
  NewtonStep line_search(std::vector<double>& p, double& sigma, HybridRenyiProgram::Values& v, double t,
                         const NewtonSystem& system, const std::vector<double>& y, double dsigma, double slope) const;

  const HybridRenyiProgram& pr_;
  const HybridRenyiOptimumOptions& o_;
  bool phase_one_;
};

}  // namespace noiselearn
