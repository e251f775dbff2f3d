#include "sampler/inverse_cdf.hpp"

#include <algorithm>
#include <stdexcept>

namespace noiselearn::sampler {

IntegerInverseCdf::IntegerInverseCdf(const QuantisedTable& table) : total_bits_(table.total_bits) {
  cumulative_.reserve(table.size());
  uint64_t running = 0;
  for (uint64_t w : table.weights) cumulative_.push_back(running += w);
  if (running != table.total()) throw std::invalid_argument("IntegerInverseCdf: weights do not sum to the total");
}

uint64_t IntegerInverseCdf::outcome(uint64_t unit) const {
  return static_cast<uint64_t>(std::upper_bound(cumulative_.begin(), cumulative_.end(), unit) - cumulative_.begin());
}

}  // namespace noiselearn::sampler
