// bench_adaptive: the exact adaptive accountant (accounting/adaptive_composition.hpp) next to the profile envelope it
// refines, on the tables of its issue, each at loss step 1e-3:
//   1. the asymmetric two-piece Laplace on the integers (p_j ~ e^{-(160 - j)/20} below the mode 160, e^{-(j - 160)/40}
//      above, j = -640..1760), s = 1, n = 500: eps(1e-5) bracket and time, against the envelope's;
//   2. a 401-point one-sided table (truncated Gaussian bump with a ripple: asymmetric, few distinguishing events),
//      s = 1, n = 500: the same;
//   3. the 401-point table: the HRDP optimum of configs/onesided-hrdp.yaml (T = 500, HRDP (4, 1e-5), alpha
//      6.51277, second moment), s = 1, n = 500;
//   4. the Vuvuzela table (30,001 points, T = 250,000) at loss step 1e-4, in blocks (adaptive_blocks.hpp);
//   5. the programme's kernel alone (accounting/shift_add.hpp) at the shape of the Vuvuzela candidates (789 atoms over
//      3,375 grid offsets, 10,240 outputs: the largest window), multiply-adds per second against the naive loop (one
//      pass over the outputs per atom), which gives the same sums without fused multiply-adds.
// Run: bench_adaptive [--threads N] [--kernel-only] (default 1 thread, like the CLI; the programme splits its window
// over the threads; --kernel-only: part 5 alone).
// Yardsticks: the envelope's time beside each, and the times in tests/benchmarks/README.md.
// Goals (issue): a 401-point one-sided table at T = 500 in <= 1 s; the Vuvuzela table at T = 250,000 in <= 60 s.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "accounting/accountant_threads.hpp"
#include "accounting/pair_accountant.hpp"
#include "accounting/shift_add.hpp"
#include "bench_timing.hpp"
#include "core/dominating_pair.hpp"
#include "solvers/hybrid_renyi_optimum.hpp"

using namespace noiselearn;
using namespace noiselearn::bench;

namespace {

void compare(const std::string& name, const NoiseTable& table, int64_t n, double loss_step = 1e-3,
             SeveralPairsMethod method = SeveralPairsMethod::kAdaptive) {
  PairSpecification specification;
  AccountantOptions envelope, adaptive;
  envelope.loss_step = adaptive.loss_step = loss_step;
  envelope.several_pairs = SeveralPairsMethod::kEnvelope;
  adaptive.several_pairs = method;
  const PairFamily family = make_pair_family(table, specification);
  PairBounds with_envelope, with_adaptive;
  const Timing te = time_of(0, 1, [&] { with_envelope = account(family, n, envelope); });
  const Timing ta = time_of(0, 1, [&] { with_adaptive = account(family, n, adaptive); });
  // delta above the distinguishing events (one-sided tables have some), where eps(delta) is finite.
  const double delta =
      1e-5 + std::max(with_envelope.composed_infinity_mass.first, with_envelope.composed_infinity_mass.second);
  fmt::print("{}, n = {}, delta = {:.6g}:\n", name, n, delta);
  fmt::print("  envelope (yardstick):     eps(delta) in [{:.6f}, {:.6f}]   {:.2f} s\n",
             with_envelope.epsilon_lower(delta), with_envelope.epsilon_upper(delta), te.best);
  fmt::print(
      "  exact adaptive programme: eps(delta) in [{:.6f}, {:.6f}]   {:.2f} s  ({})\n",
      with_adaptive.epsilon_lower(delta), with_adaptive.epsilon_upper(delta), ta.best,
      with_adaptive.alternatives.adaptive.empty() ? "not run" : with_adaptive.alternatives.adaptive.front().describe());
}

// Part 5: shift_add at the shape of the Vuvuzela candidates against the naive loop (atom by atom over the outputs).
void kernel_rate() {
  constexpr int64_t kAtoms = 789, kSpan = 3375, kLowest = -1240, kWidth = 10240;
  std::mt19937_64 random(1);
  std::vector<int64_t> offsets(kSpan);
  std::iota(offsets.begin(), offsets.end(), kLowest);
  std::shuffle(offsets.begin(), offsets.end(), random);
  offsets.resize(kAtoms);
  std::sort(offsets.begin(), offsets.end());
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<double> masses(kAtoms), values(static_cast<size_t>(kWidth + kSpan));
  for (double& m : masses) m = uniform(random) / kAtoms;
  for (double& v : values) v = uniform(random);
  const double* source = values.data() - kLowest;  // source[o] for o >= kLowest
  std::vector<double> fast(kWidth), naive(kWidth);
  const Timing tf = time_of(2, 15, [&] {
    std::fill(fast.begin(), fast.end(), 0.0);
    shift_add(masses.data(), offsets.data(), kAtoms, source, kWidth, fast.data());
  });
  const Timing tn = time_of(1, 5, [&] {
    std::fill(naive.begin(), naive.end(), 0.0);
    for (int64_t j = 0; j < kAtoms; ++j)
      for (int64_t p = 0; p < kWidth; ++p)
        naive[static_cast<size_t>(p)] += masses[static_cast<size_t>(j)] * source[p + offsets[static_cast<size_t>(j)]];
  });
  double largest_gap = 0.0;
  for (int64_t p = 0; p < kWidth; ++p)
    largest_gap = std::max(largest_gap, std::fabs(fast[static_cast<size_t>(p)] - naive[static_cast<size_t>(p)]) /
                                            naive[static_cast<size_t>(p)]);
  const double work = static_cast<double>(kAtoms) * static_cast<double>(kWidth);
  fmt::print(
      "kernel (shift_add), {} atoms over {} offsets, {} outputs: {:.3f} ms, {:.3g} multiply-adds/s (median {:.3g}); "
      "the naive loop {:.3f} ms, {:.3g}/s: {:.1f}x; largest relative difference {:.2g} (each within (m + 2) u of the "
      "exact sum: at most 2 (m + 2) u = {:.2g} apart)\n",
      kAtoms, kSpan, kWidth, 1e3 * tf.best, work / tf.best, work / tf.median, 1e3 * tn.best, work / tn.best,
      tn.best / tf.best, largest_gap, 2.0 * (kAtoms + 2) * 0x1p-53);
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = threads_argument(argc, argv, 1);  // the CLI's default
  set_accountant_threads(threads);
  fmt::print("{} thread{}\n", threads, threads == 1 ? "" : "s");
  if (argc > 1 && std::string(argv[argc - 1]) == "--kernel-only") {
    kernel_rate();
    return 0;
  }
  {
    std::vector<double> p;
    double total = 0.0;
    for (int j = -640; j <= 1760; ++j) {
      p.push_back(j <= 160 ? std::exp(-(160.0 - j) / 20.0) : std::exp(-(j - 160.0) / 40.0));
      total += p.back();
    }
    for (double& v : p) v /= total;
    compare("two-piece Laplace, 2401 points", NoiseTable(Grid{-640.0, 1.0, 2401}, p), 500);
  }
  {
    std::vector<double> p;
    double total = 0.0;
    for (int j = 0; j <= 400; ++j) {
      p.push_back(std::exp(-(j - 200.0) * (j - 200.0) / 7200.0) * (1.0 + 0.2 * std::sin(j / 7.0)));
      total += p.back();
    }
    for (double& v : p) v /= total;
    compare("one-sided 401 points", NoiseTable(Grid{0.0, 1.0, 401}, p), 500);
  }
  {
    HybridRenyiOptimumOptions o;
    o.compositions = 500;
    o.epsilon = 4.0;
    o.delta = 1e-5;
    o.alpha = 6.51277;
    o.range_steps = 400;
    const HybridRenyiOptimum solved = hybrid_renyi_optimum(o);
    compare("HRDP optimum (configs/onesided-hrdp.yaml), 401 points", solved.table(), 500);
  }
  {
    // Vuvuzela (experiments/vuvuzela): the HRDP optimum on 0..30,000 for T = 250,000, (ln 2, 1e-4), alpha 27.8022;
    // loss step 1e-4; the default `auto` runs the programme in blocks as long as the default budget allows.
    HybridRenyiOptimumOptions o;
    o.compositions = 250000;
    o.epsilon = std::log(2.0);
    o.delta = 1e-4;
    o.alpha = 27.8022;
    o.range_steps = 30000;
    const HybridRenyiOptimum solved = hybrid_renyi_optimum(o);
    compare("Vuvuzela HRDP optimum, 30,001 points (auto: blocks within the default budget)", solved.table(), 250000,
            1e-4, SeveralPairsMethod::kAuto);
  }
  kernel_rate();
  return 0;
}
