#pragma once
// Walker's alias method (Vose's construction) in integer arithmetic.
//
// Each of the K columns holds T = 2^total_bits units: its own cell up to `threshold` and its alias above.
// Cell i's scaled weight w_i K is spread over columns so that P(i) = (units of i over all columns) / (K T)
// = w_i / T exactly. A draw is one uniform column (rejection, no modulo bias) and total_bits uniform bits
// compared with an integer threshold: floating point never decides an outcome, and the time is O(1).
#include <cstdint>
#include <vector>

#include "sampler/quantised_table.hpp"
#include "sampler/random_bits.hpp"

namespace noiselearn::sampler {

class IntegerAliasTable {
 public:
  explicit IntegerAliasTable(const QuantisedTable& table);

  // The grid index drawn.
  uint64_t draw(RandomBits& bits) const {
    const Column& column = columns_[bits.uniform_below(columns_.size())];
    const uint64_t unit = bits.bits(total_bits_);
    return unit < column.threshold ? column.own : column.alias;
  }

  // The outcome for a given column and unit, for tests that enumerate every random input.
  uint64_t outcome(uint64_t column, uint64_t unit) const {
    return unit < columns_[column].threshold ? columns_[column].own : columns_[column].alias;
  }
  size_t columns() const { return columns_.size(); }
  int total_bits() const { return total_bits_; }

 private:
  struct Column {
    uint64_t threshold;  // units [0, threshold) are the column's own cell
    uint32_t own;
    uint32_t alias;
  };
  std::vector<Column> columns_;
  int total_bits_;
};

}  // namespace noiselearn::sampler
