#include "sampler/secure_sampler.hpp"

#include <cmath>

#include "sampler/grid_release.hpp"

namespace noiselearn::sampler {

SecureSampler::SecureSampler(SamplerTable table, std::unique_ptr<EntropySource> source, int total_bits)
    : table_(std::move(table)),
      quantised_(quantise(table_.probabilities, total_bits)),
      alias_(quantised_),
      bits_(std::move(source)) {}

SecureSampler SecureSampler::from_file(const std::filesystem::path& csv_path, std::unique_ptr<EntropySource> source,
                                       int total_bits) {
  return SecureSampler(read_sampler_table(csv_path), std::move(source), total_bits);
}

double SecureSampler::add_noise(double answer) {
  const int64_t answer_steps = snap_to_grid_steps(answer, table_.step);
  const auto noise_steps = static_cast<int64_t>(draw_index());
  return lattice_value(answer_steps + noise_steps, table_.origin, table_.step);
}

}  // namespace noiselearn::sampler
