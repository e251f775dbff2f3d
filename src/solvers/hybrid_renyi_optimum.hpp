#pragma once
// The least-cost one-sided noise under a Hybrid Renyi DP budget, solved exactly as one convex program (Xiao et al.,
// section 4.3, eq. 25-27, with errata E-Xiao-4 and E-Xiao-5 of experiments/errata.md: the support is {0 .. R0},
// p_0 is a variable, E[e^2] is a second moment, and for fixed alpha the problem is convex in all of p_0 .. p_R0, so
// no alternating scheme is needed).
//
// The program. Noise e on the grid x_j = j h, j = 0 .. R0, sensitivity s grid steps, T releases, order alpha > 1,
// target (epsilon, delta). Per direction d (up: the table against itself shifted up by s; down: the reverse) the
// partial Renyi moment is D_d(p) = sum over the outcomes both sides can produce of a^alpha b^(1 - alpha), and the
// degenerate mass m_d is what only the first side can produce (m_up = p_0 + .. + p_(s-1), m_down = the top s cells).
// Thm 2 / eq. 24 make T releases (epsilon, delta)-DP when, with K = (alpha - 1) epsilon,
//     T log D_d - log(delta - T m_e) <= K,   i.e.   g_(d,e)(p) = D_d(p) - (e^K (delta - T m_e))^(1/T) <= 0,
// for every pair (d, e) of Def. 7's any-direction reading (d, e in {up, down}); the paper's same-direction H pairs
// each d with its own e only. D_d is convex (a^alpha b^(1 - alpha) is the perspective of a convex power) and
// (delta - T m)^(1/T) is concave in m, so each g is convex; the cost sum_j c_j p_j (c_j = x_j^2 or x_j) is linear;
// with sum_j p_j = 1 and p > 0 this is a convex program with a unique optimal value.
//
// The solver. A log-barrier interior-point method (Boyd and Vandenberghe, ch. 11): phase I finds a strictly feasible
// point (min sigma s.t. g_i <= sigma) unless the best discrete-Laplace bump on the support already is one; phase II
// follows the central path min t c.p - sum_i log(-g_i) - (1/n) sum_j log p_j with Newton steps (every p_j is a
// denominator of some D_d term, so the constraints alone keep p > 0; the weak positivity barrier only regularises). The
// Hessian is a band of width s (each summand of D_d couples p_j and p_(j-s); the tail terms couple cells within one
// tail) plus one rank-one term per constraint, so each Newton step is one banded Cholesky and a Woodbury correction:
// O(R0 s^2), linear in R0. Steps are taken in the scaled coordinates dp = diag(p) y (Newton is affine invariant; the
// scaling keeps the band well conditioned when p spans 1e-12 .. 1e-1). g is evaluated as sum a expm1((alpha - 1)
// log(a/b)) - m_d - expm1((K + log(delta - T m_e)) / T), equal to D_d - rho on sum p = 1 but free of the cancellation
// of 1 + O(1e-6).
//
// Reported: the optimal table, its cost, the duality gap (m / t: the optimum is within it), the stationarity
// residual of the KKT conditions, and the HRDP epsilon of the result recomputed by the accountant of
// accounting/hybrid_renyi.hpp (a comparison: the certified numbers come from the PLD accountant).
#include <cstdint>
#include <string>
#include <vector>

#include "accounting/hybrid_renyi.hpp"
#include "core/noise_table.hpp"

namespace noiselearn {

enum class OneSidedCost { kSecondMoment, kMean };
OneSidedCost parse_one_sided_cost(const std::string& text);  // "second-moment" or "mean"; InputError otherwise
std::string to_string(OneSidedCost cost);

struct HybridRenyiOptimumOptions {
  int64_t compositions = 1;  // T
  double epsilon = 1.0;      // the HRDP epsilon to meet
  double delta = 1e-5;
  double alpha = 2.0;         // the order (> 1); hybrid_renyi_optimum_over_alpha searches it
  int64_t range_steps = 100;  // R0: the support is the grid points 0 .. R0
  double step = 1.0;          // grid step h
  int64_t shift_steps = 1;    // sensitivity / h
  OneSidedCost cost = OneSidedCost::kSecondMoment;
  NeighbourRelation neighbours = NeighbourRelation::kAnySequence;
  double relative_gap = 1e-9;  // stop when the duality gap is below this fraction of the cost
  int64_t max_newton_steps = 5000;
  // Phase I gives up (undecided, treated as infeasible) after this many steps: a feasible start is found in 3 - 30
  // steps when one exists; near-infeasible orders otherwise cost seconds each in an alpha search at R0 = 30,000.
  int64_t max_phase_one_steps = 200;
  void validate() const;  // InputError naming the bad field
};

enum class HybridRenyiOptimumStatus {
  kOptimal,     // phase II centred to the duality gap
  kFeasible,    // a feasible table, but no centering converged (duality_gap = inf)
  kInfeasible,  // phase I proved that no table on 0 .. R0 meets the constraint at this alpha
  kUndecided,   // phase I stalled before deciding (treated as infeasible by the searches)
};

struct HybridRenyiOptimum {
  HybridRenyiOptimumStatus status = HybridRenyiOptimumStatus::kUndecided;
  bool feasible = false;  // kOptimal or kFeasible
  double alpha = 0.0;
  std::vector<double> probabilities;  // p_0 .. p_R0 (empty if infeasible)
  double step = 1.0;
  double cost = 0.0;                     // sum c_j p_j
  double duality_gap = 0.0;              // absolute: the true optimum is in [cost - gap, cost]
  double stationarity_residual = 0.0;    // max_j p_j |grad_j of the Lagrangian| / cost
  double hrdp_epsilon = 0.0;             // recomputed by accounting/hybrid_renyi.hpp at alpha
  double phase_one_infeasibility = 0.0;  // phase I: the least max_i g_i bound reached when infeasible
  int64_t phase_one_steps = 0, phase_two_steps = 0;
  double seconds = 0.0;
  NoiseTable table() const;  // one-sided, on the grid 0, h, .., R0 h (normalised)
  std::string report() const;
};

// The optimum at options.alpha. InputError for invalid options.
HybridRenyiOptimum hybrid_renyi_optimum(const HybridRenyiOptimumOptions& options);

// The least cost over real orders: every alpha of `alphas` (empty: default_hybrid_renyi_alphas()), then a
// golden-section refinement between the best one's neighbours (the optimal cost as a function of alpha is evaluated,
// not assumed unimodal: the refinement only ever replaces the best point by a better one).
struct AlphaSearch {
  std::vector<double> alphas;
  int64_t refinement_steps = 20;
};
// alpha - 1 = 1/16, 1/16 sqrt 2, .., up to 1024 (geometric, 29 orders): alpha - 1 is what the bound scales with.
std::vector<double> default_hybrid_renyi_alphas();
HybridRenyiOptimum hybrid_renyi_optimum_over_alpha(HybridRenyiOptimumOptions options, const AlphaSearch& search = {});

// The paper's direction: the least epsilon whose optimum costs at most `budget` (bisection on epsilon to a relative
// 1e-6; each evaluation searches alpha). Returns the optimum at that epsilon; infeasible if even epsilon_high fails.
HybridRenyiOptimum least_hybrid_renyi_epsilon_for_budget(HybridRenyiOptimumOptions options, double budget,
                                                         double epsilon_low, double epsilon_high,
                                                         const AlphaSearch& search = {});

}  // namespace noiselearn
