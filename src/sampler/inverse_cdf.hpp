#pragma once
// Inverse CDF over integer cumulative weights: a uniform unit u in [0, T) maps to the first cell whose
// cumulative weight exceeds u, so cell i owns exactly w_i of the T units. O(log K) per draw; kept as the
// plain reference the alias table is checked against.
#include <cstdint>
#include <vector>

#include "sampler/quantised_table.hpp"
#include "sampler/random_bits.hpp"

namespace noiselearn::sampler {

class IntegerInverseCdf {
 public:
  explicit IntegerInverseCdf(const QuantisedTable& table);

  uint64_t outcome(uint64_t unit) const;  // unit in [0, T)
  uint64_t draw(RandomBits& bits) const { return outcome(bits.bits(total_bits_)); }
  int total_bits() const { return total_bits_; }

 private:
  std::vector<uint64_t> cumulative_;  // cumulative_[i] = w_0 + ... + w_i
  int total_bits_;
};

}  // namespace noiselearn::sampler
