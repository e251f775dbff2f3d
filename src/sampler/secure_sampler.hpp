#pragma once
// The secure sampler: an exported noise table, quantised once to integer weights, drawn from with the
// operating system's CSPRNG and an integer alias table. This is the header a production service includes
// (link noiselearn::sampler; no LibTorch):
//
//   auto sampler = noiselearn::sampler::SecureSampler::from_file("noise.csv");  // getrandom by default
//   double released = sampler.add_noise(answer);  // snaps answer to the grid, adds noise on the lattice
//
// What is sampled is sampler.quantised(), not the table as read; certify that table (noiselearn sample
// --quantised-out writes it with its certificate).
#include <cstdint>
#include <filesystem>
#include <memory>

#include "sampler/entropy_source.hpp"
#include "sampler/integer_alias_table.hpp"
#include "sampler/quantised_table.hpp"
#include "sampler/random_bits.hpp"
#include "sampler/sampler_table_file.hpp"

namespace noiselearn::sampler {

class SecureSampler {
 public:
  // `source` defaults to the OS CSPRNG; pass DeterministicTestEntropySource only in tests.
  explicit SecureSampler(SamplerTable table, std::unique_ptr<EntropySource> source = make_os_entropy_source(),
                         int total_bits = kDefaultTotalBits);
  static SecureSampler from_file(const std::filesystem::path& csv_path,
                                 std::unique_ptr<EntropySource> source = make_os_entropy_source(),
                                 int total_bits = kDefaultTotalBits);

  // A grid index, distributed as quantised().weights / 2^total_bits exactly.
  uint64_t draw_index() { return alias_.draw(bits_); }
  // The grid point of a draw: origin + step * index.
  double draw() { return table_.x(draw_index()); }
  // The safe release of a floating-point answer (grid_release.hpp): snap to the lattice, add as integers.
  double add_noise(double answer);

  const SamplerTable& table() const { return table_; }
  const QuantisedTable& quantised() const { return quantised_; }
  bool is_cryptographic() const { return bits_.is_cryptographic(); }

 private:
  SamplerTable table_;
  QuantisedTable quantised_;
  IntegerAliasTable alias_;
  RandomBits bits_;
};

}  // namespace noiselearn::sampler
