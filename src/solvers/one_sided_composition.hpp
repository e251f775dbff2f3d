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
#include <cstdint>
#include <vector>

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

DiscreteTblChoice least_second_moment_discrete_tbl(int64_t compositions, double delta, double epsilon,
                                                   OneSidedComposition accounting, const DiscreteTblGrid& grid = {});

}  // namespace noiselearn
