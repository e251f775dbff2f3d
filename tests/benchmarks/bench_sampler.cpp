// Draws per second of the secure sampler on the paper's 60,001-point grid, next to the yardstick a naive
// implementation would use: std::mt19937_64 + std::uniform_real_distribution + std::upper_bound over a double
// CDF (fast, but predictable, floating point decides outcomes, and tiny cells can vanish in the CDF).
// Goal (issue 12): >= 10^7 draws/s on one core with the OS CSPRNG.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "bench_timing.hpp"
#include "sampler/entropy_source.hpp"
#include "sampler/inverse_cdf.hpp"
#include "sampler/random_bits.hpp"
#include "sampler/secure_sampler.hpp"

using namespace noiselearn::sampler;
using noiselearn::bench::time_of;

namespace {

constexpr int64_t kDraws = 20'000'000;

// A discrete Laplace-like table on [-30000, 30000] with step 1 (60,001 points).
SamplerTable paper_sized_table() {
  SamplerTable table;
  table.origin = -30000.0;
  double sum = 0.0;
  for (int i = -30000; i <= 30000; ++i) {
    table.probabilities.push_back(std::exp(-std::abs(i) / 2000.0));
    sum += table.probabilities.back();
  }
  for (double& p : table.probabilities) p /= sum;
  return table;
}

template <typename Draw>
double draws_per_second(Draw&& draw) {
  uint64_t sink = 0;
  const auto timing = time_of(1, 3, [&] {
    for (int64_t i = 0; i < kDraws; ++i) sink += draw();
  });
  if (sink == 42) fmt::print(" ");  // keep the draws from being optimised away
  return static_cast<double>(kDraws) / timing.best;
}

}  // namespace

int main() {
  const SamplerTable table = paper_sized_table();
  fmt::print("bench_sampler: {} draws per figure (best of 3), table of {} points, one core\n", kDraws, table.size());

  SecureSampler secure(table);  // OS CSPRNG (getrandom), 64 KiB refills
  const double secure_rate = draws_per_second([&] { return secure.draw_index(); });

  SecureSampler seeded(table, std::make_unique<DeterministicTestEntropySource>(1));
  const double seeded_rate = draws_per_second([&] { return seeded.draw_index(); });

  IntegerInverseCdf inverse(secure.quantised());
  RandomBits inverse_bits(make_os_entropy_source());
  const double inverse_rate = draws_per_second([&] { return inverse.draw(inverse_bits); });

  RandomBits raw(make_os_entropy_source());
  const double raw_rate = draws_per_second([&] { return raw.bits(63); });

  // The yardstick.
  std::vector<double> cdf(table.size());
  double running = 0.0;
  for (size_t i = 0; i < cdf.size(); ++i) cdf[i] = running += table.probabilities[i];
  std::mt19937_64 engine(1);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  const double naive_rate = draws_per_second(
      [&] { return static_cast<uint64_t>(std::upper_bound(cdf.begin(), cdf.end(), uniform(engine)) - cdf.begin()); });

  fmt::print("  secure sampler, integer alias, getrandom (default)   {:8.3g} draws/s  ({:.2f} x yardstick; goal 1e7)\n",
             secure_rate, secure_rate / naive_rate);
  fmt::print("  integer alias, DeterministicTestEntropySource        {:8.3g} draws/s\n", seeded_rate);
  fmt::print("  integer inverse CDF (binary search), getrandom       {:8.3g} draws/s\n", inverse_rate);
  fmt::print("  getrandom bits alone (63 bits per call)              {:8.3g} calls/s\n", raw_rate);
  fmt::print("  yardstick: mt19937_64 + uniform_real + upper_bound   {:8.3g} draws/s\n", naive_rate);
  return 0;
}
