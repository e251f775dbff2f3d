#pragma once
// The least second moment of the discrete TBL (p_j ~ exp(-|j - R/2| / sigma) on 0 .. R, sensitivity 1) that makes T
// releases (epsilon, delta)-DP, on a grid of (R, sigma) as Xiao et al. search it for Fig. 2 (R step 10, sigma step
// 0.5, integer alpha 2 .. 25), with the composition accounted by
//   - advanced composition (their case 1): each release is (1/sigma, p_0)-DP exactly (the neighbouring ratios are
//     e^(+-1/sigma) and p_0 = p_R is the distinguishing mass), composed by Dwork-Rothblum-Vadhan with
//     delta' = delta - T p_0;
//   - Hybrid Renyi DP (their case 2): accounting/hybrid_renyi.hpp, any-direction neighbours.
// For each sigma the least feasible R is taken (E[e^2] grows with R), then the best sigma. A comparison baseline,
// not a certificate: certify the chosen table with the accountant.
//
// The scan visits about 10^5 tables per target, so it evaluates the TBL's shift-by-one pair in closed form
// (discrete_tbl_pair below) rather than through a NoiseTable and the general HRDP sums (48 logarithms and exponentials
// per grid point and table; tests/benchmarks/README.md has the times). tests/solvers/test_one_sided_composition.cpp
// checks the closed form against the general accountant.
#include <cstdint>
#include <vector>

#include "accounting/hybrid_renyi.hpp"

namespace noiselearn {

enum class OneSidedComposition { kAdvanced, kHybridRenyi };

struct DiscreteTblGrid {
  int64_t range_step = 10;
  int64_t max_range = 4000;
  double sigma_step = 0.5;
  double max_sigma = 100.0;
  std::vector<double> alphas;  // empty: the integers 2 .. 25
};

struct DiscreteTblChoice {
  bool found = false;
  int64_t range = 0;
  double sigma = 0.0;
  double second_moment = 0.0;
  double epsilon = 0.0;  // the accounted epsilon of the choice (<= the target)
  double alpha = 0.0;    // HRDP: the order attaining it
};

// The pair (A, B) of one release of the discrete TBL p_j ~ exp(-|j - mu| / sigma) on 0 .. R with sensitivity one grid
// step, both orders, as privacy-loss atoms. The likelihood ratio p_x / p_(x-1) = exp((|x - 1 - mu| - |x - mu|) / sigma)
// takes only the values e^(1/sigma) (x <= mu), e^(-1/sigma) (x - 1 >= mu) and, where mu lies strictly inside a cell
// (x - 1 < mu < x), exp((2 mu - 2x + 1) / sigma). So the forward order (A = p, B = p shifted up, B(x) = p_(x-1)) has at
// most three loss atoms with masses sums of p_x, and its partial Renyi moment (Xiao et al., eq. 23) is
//   D_alpha = sum over atoms of mass e^((alpha - 1) loss),
// since A^alpha B^(1 - alpha) = A (A / B)^(alpha - 1); its degenerate mass (B = 0 < A) is p_0. The reverse order has
// the masses p_(x-1), the losses negated and the degenerate mass p_R.
struct DiscreteTblAtom {
  double mass = 0.0;
  double loss = 0.0;
};
struct DiscreteTblPair {
  double second_moment = 0.0;                     // E[e^2] = sum j^2 p_j
  double first_mass = 0.0, last_mass = 0.0;       // p_0, p_R: the degenerate masses of the forward and reverse orders
  std::vector<DiscreteTblAtom> forward, reverse;  // at most three atoms each, zero masses left out
};
DiscreteTblPair discrete_tbl_pair(int64_t range, double mu, double sigma);

// Hybrid Renyi epsilon (eq. 24) of T releases of that pair at a target delta, any-direction neighbours (Def. 7: eps_p
// and delta_p each the worse of the two orders), the least over the orders alpha: the same value as
// hybrid_renyi_epsilon(discrete_tbl_table(range, mu, sigma), 1, T, delta, alphas) up to rounding.
HybridRenyiEpsilon discrete_tbl_hybrid_renyi_epsilon(const DiscreteTblPair& pair, int64_t compositions, double delta,
                                                     const std::vector<double>& alphas);

DiscreteTblChoice least_second_moment_discrete_tbl(int64_t compositions, double delta, double epsilon,
                                                   OneSidedComposition accounting, const DiscreteTblGrid& grid = {});

}  // namespace noiselearn
