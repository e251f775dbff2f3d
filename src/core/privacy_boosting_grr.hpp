#pragma once
// Privacy-boosting general randomised response, PB-GRR (Jiang et al., section 4.4, Prop. 7 and Remark 5): a
// local randomiser on a finite domain X where each item x has a preferred region S(x) of |S| items (x included),
// e.g. its category, or its neighbours for ranked data. The report is x itself with probability p, another item of
// S(x) with probability p_s each, an item outside with p_sbar each:
//   p = e^eps / D, p_s = e^(eps - eps0) / D, p_sbar = 1 / D,  D = e^eps + (|S| - 1) e^(eps - eps0) + |X| - |S|,
// and rho = Pr[report in S(x)] = (e^eps + (|S| - 1) e^(eps - eps0)) / D. eps0 in [0, eps] splits the budget:
// eps0 = eps is plain GRR; eps0 = 0 spends it all on the region.
// The guarantee is pure eps-LDP; exact_local_epsilon checks it by enumerating every pair of inputs and output.
#include <cstdint>
#include <vector>

namespace noiselearn {

struct PbGrrProbabilities {
  double p = 0.0;       // report the true item
  double p_s = 0.0;     // each other item of its region
  double p_sbar = 0.0;  // each item outside
  double rho = 0.0;     // Pr[report in S(x)]
};

// Throws InputError unless 1 <= region_size <= domain_size, 0 <= eps0 <= eps, eps finite.
PbGrrProbabilities pb_grr_probabilities(int64_t domain_size, int64_t region_size, double epsilon, double epsilon0);

// Regions: items 0..n-1 in consecutive categories of `size` (the last may be smaller: n must be a multiple, else
// InputError), or circular windows {x - k .. x + k'} of `size` items around each x (ranked data).
std::vector<std::vector<int64_t>> category_regions(int64_t domain_size, int64_t size);
std::vector<std::vector<int64_t>> window_regions(int64_t domain_size, int64_t size);

// The randomiser's matrix P[x][y] for the given regions (each region must contain its item and have the same size).
std::vector<std::vector<double>> pb_grr_matrix(const std::vector<std::vector<int64_t>>& regions, double epsilon,
                                               double epsilon0);

// max over inputs x, x' and outputs y of ln P[x][y] / P[x'][y]: the exact local epsilon.
double exact_local_epsilon(const std::vector<std::vector<double>>& matrix);

}  // namespace noiselearn
