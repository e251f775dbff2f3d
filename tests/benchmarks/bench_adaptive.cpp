// bench_adaptive: the exact adaptive accountant (accounting/adaptive_composition.hpp) next to the profile envelope it
// refines, on the tables of its issue, each at loss step 1e-3:
//   1. the asymmetric two-piece Laplace on the integers (p_j ~ e^{-(160 - j)/20} below the mode 160, e^{-(j - 160)/40}
//      above, j = -640..1760), s = 1, n = 500: eps(1e-5) bracket and time, against the envelope's;
//   2. a 401-point one-sided table (truncated Gaussian bump with a ripple: asymmetric, few distinguishing events), s = 1,
//      n = 500: the same;
//   3. the 401-point table: the HRDP optimum of configs/onesided-hrdp.yaml (T = 500, HRDP (4, 1e-5), alpha
//      6.51277, second moment), s = 1, n = 500;
//   4. the Vuvuzela table (30,001 points, T = 250,000) at loss step 1e-4, in blocks (adaptive_blocks.hpp).
// Run: bench_adaptive [--threads N] (default 1, like the CLI; the programme splits its window over the threads).
// Yardsticks: the envelope's time beside each, and the previous version's times (README, benchmark table).
// Goals (issue): a 401-point one-sided table at T = 500 in <= 1 s; the Vuvuzela table at T = 250,000 in <= 60 s.
#include <ATen/Parallel.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "accounting/pair_accountant.hpp"
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
  const double delta = 1e-5 + std::max(with_envelope.composed_infinity_mass_first, with_envelope.composed_infinity_mass_second);
  fmt::print("{}, n = {}, delta = {:.6g}:\n", name, n, delta);
  fmt::print("  envelope (yardstick):     eps(delta) in [{:.6f}, {:.6f}]   {:.2f} s\n", with_envelope.epsilon_lower(delta),
             with_envelope.epsilon_upper(delta), te.best);
  fmt::print("  exact adaptive programme: eps(delta) in [{:.6f}, {:.6f}]   {:.2f} s  ({})\n", with_adaptive.epsilon_lower(delta),
             with_adaptive.epsilon_upper(delta), ta.best,
             with_adaptive.adaptive.empty() ? "not run" : with_adaptive.adaptive.front().describe());
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = threads_argument(argc, argv, 1);  // the CLI's default
  at::set_num_threads(threads);
  fmt::print("{} thread{}\n", threads, threads == 1 ? "" : "s");
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
  return 0;
}
