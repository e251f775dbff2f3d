// bench_one_sided: the convex HRDP program (solvers/hybrid_renyi_optimum) at Vuvuzela size and the Fig. 2 table of
// Xiao et al.
//   1. One solve at R0 = 30,000, T = 250,000, eps = ln 2, delta = 1e-4 (alpha fixed), against the goal of
//      60 s, and at R0 = 3,000 to show the linear cost per Newton step; the HRDP epsilon of the 30,001-point result
//      (one evaluation) next to it.
//   2. `--fig2`: per (T, delta) in {(500, 1e-5), (1000, 1e-8)} and target eps 2 .. 10, the least E[e^2] of the discrete
//      TBL with advanced composition and with HRDP on the authors' grid (R step 10, sigma step 0.5, integer alpha 2 ..
//      25) and of the HRDP optimum (alpha searched, R0 the best of 100 .. 1600 doubling). Comparison numbers (the
//      experiment certifies the optima through the CLI).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "accounting/hybrid_renyi.hpp"
#include "bench_timing.hpp"
#include "solvers/hybrid_renyi_optimum.hpp"
#include "solvers/one_sided_composition.hpp"

using namespace noiselearn;
using noiselearn::bench::seconds_since;

namespace {

void vuvuzela() {
  std::printf("1. convex HRDP program, T = 250,000, eps = ln 2, delta = 1e-4, alpha 40 (one order)\n");
  for (int64_t r0 : {3000, 30000}) {
    HybridRenyiOptimumOptions o;
    o.compositions = 250000;
    o.epsilon = std::log(2.0);
    o.delta = 1e-4;
    o.alpha = 40.0;
    o.range_steps = r0;
    const auto start = std::chrono::steady_clock::now();
    const HybridRenyiOptimum r = hybrid_renyi_optimum(o);
    const double seconds = seconds_since(start);
    const int64_t steps = r.phase_one_steps + r.phase_two_steps;
    double mean = 0.0;
    for (size_t j = 0; j < r.probabilities.size(); ++j) mean += static_cast<double>(j) * r.probabilities[j];
    std::printf("   R0 = %6lld: %6.2f s (%lld Newton steps, %.3f ms each; goal < 60 s): %s; mean %.1f\n",
                static_cast<long long>(r0), seconds, static_cast<long long>(steps),
                1e3 * seconds / std::max<int64_t>(1, steps), r.feasible ? "feasible" : "no table", mean);
    if (r0 == 30000 && r.feasible) {
      const NoiseTable table = r.table();
      const auto t =
          bench::time_of(1, 5, [&] { (void)hybrid_renyi_epsilon_at(table, 1, o.compositions, o.delta, o.alpha); });
      std::printf(
          "   HRDP epsilon of the 30,001-point optimum (one evaluation, both directions): %.2f ms (best of 5)\n",
          1e3 * t.best);
    }
  }
}

void fig2(const std::vector<std::pair<int64_t, double>>& settings) {
  std::printf("2. Fig. 2: least E[e^2] for T releases to be (eps, delta)-DP\n");
  std::printf("   %5s %7s %4s %14s %14s %14s %8s %6s %8s\n", "T", "delta", "eps", "TBL+AC", "TBL+HRDP", "HRDP-optimum",
              "alpha", "R0", "seconds");
  for (const auto& [t, delta] : settings) {
    for (double eps : {2.0, 3.0, 4.0, 6.0, 8.0, 10.0}) {
      const DiscreteTblChoice ac = least_second_moment_discrete_tbl(t, delta, eps, OneSidedComposition::kAdvanced);
      const DiscreteTblChoice hr = least_second_moment_discrete_tbl(t, delta, eps, OneSidedComposition::kHybridRenyi);
      const auto start = std::chrono::steady_clock::now();
      HybridRenyiOptimum best;
      int64_t best_r0 = 0;
      for (int64_t r0 = 100; r0 <= 1600; r0 *= 2) {
        HybridRenyiOptimumOptions o;
        o.compositions = t;
        o.epsilon = eps;
        o.delta = delta;
        o.range_steps = r0;
        const HybridRenyiOptimum r = hybrid_renyi_optimum_over_alpha(o);
        if (r.feasible && (!best.feasible || r.cost < best.cost)) best = r, best_r0 = r0;
      }
      const auto text = [](bool found, double value) { return found ? std::to_string(value) : std::string("none"); };
      std::printf("   %5lld %7.0e %4.0f %14s %14s %14s %8.3f %6lld %8.1f\n", static_cast<long long>(t), delta, eps,
                  text(ac.found, ac.second_moment).c_str(), text(hr.found, hr.second_moment).c_str(),
                  text(best.feasible, best.cost).c_str(), best.alpha, static_cast<long long>(best_r0),
                  seconds_since(start));
      std::fflush(stdout);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  // --fig2 [T DELTA]: both of the paper's settings, or one.
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--fig2") == 0) {
      std::vector<std::pair<int64_t, double>> settings{{500, 1e-5}, {1000, 1e-8}};
      if (i + 2 < argc) settings = {{std::atoll(argv[i + 1]), std::atof(argv[i + 2])}};
      fig2(settings);
      return 0;
    }
  vuvuzela();
  return 0;
}
