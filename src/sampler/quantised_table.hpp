#pragma once
// A noise table quantised once to integer weights: what the sampler draws from, exactly.
//
// Rounding rule (largest remainder with a floor of one unit). With total T = 2^total_bits and the ideal
// weights q_i = T p_i / sum(p):
//   1. w_i = floor(q_i), and every cell with p_i > 0 gets at least 1 unit: a positive probability never
//      becomes 0, because an outcome possible under one neighbour and impossible under the other is a
//      distinguishing event (an infinite privacy loss);
//   2. the missing units T - sum(w) go one each to the cells with the largest remainders q_i - floor(q_i)
//      (ties: lower index first), cells that were lifted to the floor excluded;
//   3. units in excess (only when the floor lifted cells) are taken one each from the cells with the smallest
//      remainders among those holding at least 2 units and not lifted.
// Zero cells stay 0 (a zero of the source is a truncation the certificate already sees). The weights sum to T
// exactly. With total_bits <= 53 each w_i / T is a double exactly, so the quantised table written as CSV
// reads back as the same weights: the file that is certified is the table that is sampled.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace noiselearn::sampler {

inline constexpr int kDefaultTotalBits = 53;
inline constexpr int kMaxTotalBits = 62;

struct QuantisedTable {
  std::vector<uint64_t> weights;  // sum == total()
  int total_bits = kDefaultTotalBits;
  // The change, against the probabilities as given: max |w_i / T - p_i|, the largest ratio
  // (w_i / T) / p_i and p_i / (w_i / T) over positive cells, and how many cells the floor of 1 unit lifted.
  double max_abs_change = 0.0;
  double max_ratio = 1.0;
  int64_t cells_lifted = 0;

  uint64_t total() const { return uint64_t{1} << total_bits; }
  size_t size() const { return weights.size(); }
  double probability(size_t i) const;  // w_i / T, exact for total_bits <= 53
  std::vector<double> probabilities() const;
};

// Throws std::invalid_argument for an empty table, a negative or non-finite entry, a zero sum,
// total_bits outside [1, kMaxTotalBits], or more positive cells than units.
QuantisedTable quantise(const std::vector<double>& probabilities, int total_bits = kDefaultTotalBits);

}  // namespace noiselearn::sampler
