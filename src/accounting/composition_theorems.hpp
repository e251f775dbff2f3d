#pragma once
// Composition theorems for (epsilon, delta)-DP as COMPARISONS printed next to the certificate: what a user who
// only knows the single-release guarantee would report for k releases. None of them is a certificate.
//
// Basic composition (Dwork & Roth 2014, Thm 3.16): the k-fold composition of (eps0, delta0)-DP mechanisms is
//   (k eps0, k delta0)-DP.
//
// Advanced composition (Dwork, Rothblum, Vadhan 2010, "Boosting and differential privacy"; Dwork & Roth 2014,
// Thm 3.20): for all eps0, delta0, delta' >= 0, the k-fold adaptive composition of (eps0, delta0)-DP mechanisms is
//   (eps', k delta0 + delta')-DP  with  eps' = sqrt(2 k ln(1/delta')) eps0 + k eps0 (e^{eps0} - 1).
// For a total budget delta_total we take delta' = delta_total - k delta0 (all the slack to delta').
//
// Optimal homogeneous composition (Kairouz, Oh, Viswanath 2015, Thm 3.3): for eps0 >= 0, delta0 in [0, 1], the
// k-fold adaptive composition of (eps0, delta0)-DP mechanisms is, for every i in {0, ..., floor(k/2)},
//   ((k - 2i) eps0, 1 - (1 - delta0)^k (1 - delta_i))-DP,
//   delta_i = sum_{l=0}^{i-1} C(k, l) (e^{(k-l) eps0} - e^{(k-2i+l) eps0}) / (1 + e^{eps0})^k,
// and this is tight: no better guarantee holds for every such composition. The proof shows that every
// (eps0, delta0)-DP mechanism is a post-processing of one pair (P, Q) on four outcomes,
//   P = (delta0, (1-delta0) e^{eps0}/(1+e^{eps0}), (1-delta0)/(1+e^{eps0}), 0),  Q = P reversed,
// so the exact delta of the k-fold composition at ANY eps' >= 0 is the hockey-stick divergence of (P^k, Q^k):
//   delta(eps') = 1 - (1 - delta0)^k (1 - sum_l C(k,l) max(0, e^{(k-l) eps0} - e^{eps' + l eps0}) / (1+e^{eps0})^k),
// which equals the theorem at eps' = (k - 2i) eps0 and interpolates between those points. This is what
// optimal_homogeneous_composition_delta computes (in log space); the tests check it against an enumeration of
// (P^k, Q^k).
#include <cstdint>
#include <functional>

namespace noiselearn {

struct ApproximateDp {
  double epsilon;
  double delta;
};

// Dwork & Roth, Thm 3.16. Throws InputError for eps0 < 0 or not finite, delta0 not in [0, 1], k < 1.
ApproximateDp basic_composition(double eps0, double delta0, int64_t k);

// Dwork & Roth, Thm 3.20 with delta' = delta_total - k delta0. Throws InputError if delta' <= 1e-12 delta_total
// (no slack beyond the rounding of the subtraction), delta_total not in (0, 1), or the single-release parameters are
// invalid (as above).
double advanced_composition_epsilon(double eps0, double delta0, int64_t k, double delta_total);

// Kairouz-Oh-Viswanath: the exact (tight) delta of the k-fold composition at eps', see above. eps' >= 0.
double optimal_homogeneous_composition_delta(double eps0, double delta0, int64_t k, double epsilon_total);

// The smallest eps' >= 0 with optimal_homogeneous_composition_delta(eps') <= delta_total (bisection to a relative
// 1e-12, rounded up). Throws InputError if delta_total < 1 - (1 - delta0)^k (no eps' achieves it: that mass is
// distinguishing) or delta_total not in (0, 1).
double optimal_homogeneous_composition_epsilon(double eps0, double delta0, int64_t k, double delta_total);

// A single-release privacy curve eps0 -> delta0(eps0), for eps0 >= 0 (e.g. the certified upper bound
// PairBounds::delta_upper of one release). Must be non-increasing for the operating-point search to be meaningful;
// values outside [0, 1] are clamped, NaN is a runtime error.
using SingleReleaseDeltaCurve = std::function<double(double)>;

struct OperatingPointOptions {
  // eps0 searched: 0 and a geometric grid of `grid_points` values from min to max, then `refinement_iterations`
  // golden-section steps around the best grid point.
  double min_single_epsilon = 1e-6;
  double max_single_epsilon = 50.0;
  int grid_points = 400;
  int refinement_iterations = 80;

  // Throws InputError naming the field.
  void validate() const;
};

// The best single-release operating point (eps0, delta0(eps0)) for a composition theorem.
struct CompositionOperatingPoint {
  double epsilon;         // the composed eps'; +inf if no eps0 on the search range is feasible
  double single_epsilon;  // eps0 that attains it (NaN if none)
  double single_delta;    // delta0(eps0)
};

// min over eps0 of advanced_composition_epsilon(eps0, delta0(eps0), k, delta_total); operating points with
// k delta0(eps0) >= delta_total are infeasible.
CompositionOperatingPoint best_advanced_composition(const SingleReleaseDeltaCurve& single_release_delta, int64_t k,
                                                    double delta_total, const OperatingPointOptions& options = {});

// The same for the optimal homogeneous composition (infeasible where 1 - (1 - delta0)^k > delta_total). Still only a
// comparison: a mechanism's full privacy curve composes better than any single (eps0, delta0) summary of it.
CompositionOperatingPoint best_optimal_homogeneous_composition(const SingleReleaseDeltaCurve& single_release_delta,
                                                               int64_t k, double delta_total,
                                                               const OperatingPointOptions& options = {});

}  // namespace noiselearn
