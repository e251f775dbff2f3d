#pragma once
// Utility (error) functionals of a noise table: the expected cost of adding the noise. Sommer et al. (eq. 2)
// weigh privacy against these discrete sums over the table; Geng et al.'s staircase minimises the L1 one,
// the truncated Gaussian is compared under L2, Xiao et al. budget the second moment.
#include <string>

#include "core/noise_table.hpp"

namespace noiselearn {

// E|e| = sum_i |x_i| p_i (mean absolute error).
double l1_utility(const NoiseTable& table);
// sqrt(E[e^2]) (root-mean-square error; for one-sided noise it includes the bias).
double l2_utility(const NoiseTable& table);
// E[e^2] = sum_i x_i^2 p_i.
double second_moment(const NoiseTable& table);
// Pr[|e| > tau]: the mass of the grid points with |x_i| > tau + 1e-9 * step (the tolerance keeps a point that
// is tau up to the rounding of origin + i * step on the inside). Summed over the tail itself, so a tiny tail
// probability keeps its relative precision. tau must be >= 0 (infinity gives 0).
double tail_probability(const NoiseTable& table, double tau);
// max |x_i| over the points with p_i > 0: the worst-case error.
double max_abs_error(const NoiseTable& table);

// The utility a user optimises or matches (the config's utility.kind). Every kind grows with the noise's
// scale, which calibration relies on.
enum class UtilityKind { kL1, kL2, kSecondMoment, kTailProbability };
// Parses "l1", "l2", "second-moment", "tail-probability"; throws InputError listing the valid names otherwise.
UtilityKind parse_utility_kind(const std::string& text);
std::string to_string(UtilityKind kind);

struct UtilitySpecification {
  // Implicit from a kind, so that utility(table, UtilityKind::kL1) reads naturally.
  UtilitySpecification(UtilityKind kind_ = UtilityKind::kL1, double tail_threshold_ = 1.0)
      : kind(kind_), tail_threshold(tail_threshold_) {}
  UtilityKind kind;
  double tail_threshold;  // tau of the tail probability (units of x)
};
double utility(const NoiseTable& table, const UtilitySpecification& specification);

}  // namespace noiselearn
