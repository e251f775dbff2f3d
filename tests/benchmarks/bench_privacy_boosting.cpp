// bench_privacy_boosting: the exact PB certificate and the PB sampler, each next to a yardstick.
//   1. One release, interval region (tau 10, rho 0.9, sigma 6.58, Delta 1): privacy_boosting_bounds against the
//      continuous Gaussian mechanism's bounds at the same sigma and loss step (the same kind of work, one pair, no
//      region constants).
//   2. Relative region (theta 0.1, tau 2, sigma 1.5, loss step 1e-3): hundreds of answer pairs; time per pair.
//   3. Sampling: PB draws per second (rejection from the kernel) against std::normal_distribution alone.
#include <fmt/format.h>

#include <random>

#include "accounting/continuous_mechanisms.hpp"
#include "accounting/privacy_boosting_accountant.hpp"
#include "bench_timing.hpp"

using namespace noiselearn;
using namespace noiselearn::bench;

int main() {
  AccountantOptions options;
  const PrivacyBoostingMechanism interval({BoostingKernelKind::kGaussian, 6.58293},
                                          PreferredRegion{PreferredRegionKind::kInterval, 10.0, 0, 0, 0}, 0.9);
  double eps = 0.0;
  const Timing pb = time_of(
      1, 5, [&] { eps = privacy_boosting_bounds(interval, AnswerSensitivity{}, options).bounds.epsilon_upper(1e-5); });
  const Timing gauss = time_of(1, 5, [&] { gaussian_mechanism_bounds(6.58293, 1.0, options); });
  fmt::print(
      "one release, interval region, loss step 1e-4: PB certificate {:.3f} s (median {:.3f}), eps {:.6f} at 1e-5\n",
      pb.best, pb.median, eps);
  fmt::print(
      "  yardstick: continuous Gaussian mechanism bounds, same sigma and loss step (pieces 1/8 step): {:.3f} s\n",
      gauss.best);

  AccountantOptions coarse;
  coarse.loss_step = 1e-3;
  const PrivacyBoostingMechanism relative({BoostingKernelKind::kGaussian, 1.5},
                                          PreferredRegion{PreferredRegionKind::kRelative, 2.0, 0.1, 0, 0}, 0.9);
  size_t pairs = 0;
  const Timing rel = time_of(0, 1, [&] {
    const auto b = privacy_boosting_bounds(relative, AnswerSensitivity{}, coarse);
    pairs = b.pairs.size();
    eps = b.bounds.epsilon_upper(1e-5);
  });
  fmt::print(
      "relative region, loss step 1e-3: {} answer pairs, both directions, {:.2f} s ({:.1f} ms per pair and direction), "
      "eps {:.6f} at 1e-5\n",
      pairs, rel.best, 1e3 * rel.best / (2.0 * pairs), eps);

  std::mt19937_64 generator(1);
  const int draws = 2'000'000;
  double sink = 0.0;
  const Timing sampling = time_of(1, 3, [&] {
    for (int i = 0; i < draws; ++i) sink += interval.sample(0.0, generator);
  });
  std::normal_distribution<double> normal(0.0, 6.58293);
  const Timing plain = time_of(1, 3, [&] {
    for (int i = 0; i < draws; ++i) sink += normal(generator);
  });
  fmt::print(
      "sampling (mt19937_64): PB {:.3g} draws/s; yardstick std::normal_distribution {:.3g} draws/s (sink {:.3g})\n",
      draws / sampling.best, draws / plain.best, sink);
  return 0;
}
