#pragma once
// Dominating pairs (A, B): the output distributions of a mechanism on the worst pair of neighbouring inputs
// (Sommer et al., section 2.1.1 and eq. 5). Privacy is a property of the pair in both directions, A||B and
// B||A; the accountant always evaluates both.
#include <cstdint>
#include <string>
#include <vector>

#include "core/grid.hpp"
#include "core/noise_table.hpp"

namespace noiselearn {

struct DominatingPair {
  Grid grid;              // common (extended) support of A and B
  std::vector<double> a;  // output distribution on D0
  std::vector<double> b;  // output distribution on D1
  std::string description;
};

// Additive noise with a query difference of `shift_cells` grid cells: A = p, B = p shifted up by k cells,
// both on the extended support [origin, last + k*step].
DominatingPair additive_shift_pair(const NoiseTable& table, int64_t shift_cells);

// DP-SGD subsampled mixture (Sommer et al., eq. 5): A = p, B = (1 - q) p + q shift_C(p), C = k cells.
DominatingPair subsampled_mixture_pair(const NoiseTable& table, int64_t shift_cells, double sampling_rate);

// Which query differences must be checked for a sensitivity of k cells.
enum class ShiftPolicy {
  kAuto,    // single shift if the table is symmetric and monotone (Thm 15), every shift otherwise
  kSingle,  // the maximal shift k only (the caller asserts Thm 15 applies)
  kAll,     // every shift 1..k; the guarantee is the worst of them
};
ShiftPolicy parse_shift_policy(const std::string& text);
std::string to_string(ShiftPolicy policy);

enum class PairKind { kAdditive, kSubsampledMixture };
PairKind parse_pair_kind(const std::string& text);
std::string to_string(PairKind kind);

struct PairSpecification {
  PairKind kind = PairKind::kAdditive;
  double sensitivity = 1.0;    // in units of x; must be a whole number of grid steps
  double sampling_rate = 1.0;  // q, for the subsampled mixture
  ShiftPolicy shifts = ShiftPolicy::kAuto;
};

// The pairs whose worst case is the guarantee, and why these (which theorem, or "every shift").
struct PairFamily {
  PairKind kind = PairKind::kAdditive;
  std::vector<DominatingPair> pairs;
  int64_t sensitivity_cells = 0;
  bool single_shift = true;
  std::string justification;
};

// Builds the pairs for a table and a specification. Throws InputError if the sensitivity is not a whole
// number of grid steps or the sampling rate is outside (0, 1].
PairFamily make_pair_family(const NoiseTable& table, const PairSpecification& specification);

}  // namespace noiselearn
