#include "sampler/integer_alias_table.hpp"

#include <limits>
#include <stdexcept>

namespace noiselearn::sampler {

IntegerAliasTable::IntegerAliasTable(const QuantisedTable& table) : total_bits_(table.total_bits) {
  const size_t k = table.size();
  if (k == 0) throw std::invalid_argument("IntegerAliasTable: empty table");
  if (k > std::numeric_limits<uint32_t>::max()) throw std::invalid_argument("IntegerAliasTable: too many cells");
  // w_i K can reach 2^62 * 2^32: 128-bit arithmetic during construction only.
  using Wide = unsigned __int128;
  const Wide capacity = table.total();
  std::vector<Wide> scaled(k);
  std::vector<uint32_t> small, large;
  for (size_t i = 0; i < k; ++i) {
    scaled[i] = static_cast<Wide>(table.weights[i]) * k;
    (scaled[i] < capacity ? small : large).push_back(static_cast<uint32_t>(i));
  }
  columns_.resize(k);
  while (!small.empty() && !large.empty()) {
    const uint32_t lacking = small.back();
    small.pop_back();
    const uint32_t donor = large.back();
    columns_[lacking] = {static_cast<uint64_t>(scaled[lacking]), lacking, donor};
    scaled[donor] -= capacity - scaled[lacking];
    if (scaled[donor] < capacity) {
      large.pop_back();
      small.push_back(donor);
    }
  }
  // The scaled weights sum to K T exactly, so whatever is left holds exactly T units.
  for (const auto* rest : {&small, &large})
    for (uint32_t i : *rest) {
      if (scaled[i] != capacity) throw std::logic_error("IntegerAliasTable: weights do not sum to the total");
      columns_[i] = {table.total(), i, i};
    }
}

}  // namespace noiselearn::sampler
