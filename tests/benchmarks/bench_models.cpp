// Benchmark of the sigmoid-stack model (Sommer et al., eq. 4): forward + backward of log p through the fast
// exact evaluation against the direct (E/2 × K) matrix, at the paper's scale (grid [-500, 500], step 1/60,
// E = 60,001, K = 10,000; target <= 10 ms on 2 threads) and at E = 6,001, K = 1,000.
// The direct evaluation at the paper's scale needs ~10 GB; it is timed at K = 500 and 1,000 on the same grid and
// extrapolated linearly in K (its cost is proportional to E K), as printed.
// Figures are wall-clock; the load average printed first says whether other processes shared the cores
// (with 2 threads, a busy core stalls every parallel region of LibTorch's OpenMP backend).
// Run: ./build/tests/benchmarks/bench_models [--threads N]
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_timing.hpp"
#include "models/sigmoid_stack.hpp"

using namespace noiselearn;

namespace {

// Median wall time of `repetitions` runs after one warm-up run.
template <typename F>
double median_seconds(int repetitions, F&& f) {
  return bench::time_of(1, repetitions, f).median;
}

// One training step's worth of work: log p, a scalar loss with every log p in it, and its gradient.
double forward_backward_seconds(SigmoidStack& model, bool fast, int repetitions) {
  const torch::Tensor weights = torch::rand({model.grid().size}, torch::kDouble);
  return median_seconds(repetitions, [&] {
    model.zero_grad();
    const torch::Tensor log_p = fast ? model.forward_fast() : model.forward_direct();
    (log_p * weights).sum().backward();
  });
}

std::shared_ptr<SigmoidStack> make_model(const Grid& grid, int64_t sigmoids) {
  SigmoidStackOptions options;
  options.sigmoids = sigmoids;
  options.seed = 1;
  return std::make_shared<SigmoidStack>(grid, options);
}

void report(const char* label, double range, int64_t sigmoids, const std::vector<int64_t>& direct_sigmoids) {
  const Grid grid = Grid::symmetric(range, 1.0 / 60.0);
  const auto model = make_model(grid, sigmoids);
  const double fast = forward_backward_seconds(*model, true, 21);
  std::printf("%s: E = %lld, K = %lld, C = 500\n", label, static_cast<long long>(grid.size),
              static_cast<long long>(sigmoids));
  std::printf("  fast exact   forward+backward  %10.3f ms  (median of 21)\n", 1e3 * fast);
  for (int64_t k : direct_sigmoids) {
    const auto reference = make_model(grid, k);
    const double direct = forward_backward_seconds(*reference, false, 3);
    if (k == sigmoids) {
      std::printf("  direct       forward+backward  %10.3f ms  (median of 3)   speed-up %.0fx\n", 1e3 * direct,
                  direct / fast);
    } else {
      const double extrapolated = direct * static_cast<double>(sigmoids) / static_cast<double>(k);
      std::printf(
          "  direct at K = %5lld           %10.3f ms  -> extrapolated to K = %lld: %10.1f ms   speed-up %.0fx\n",
          static_cast<long long>(k), 1e3 * direct, static_cast<long long>(sigmoids), 1e3 * extrapolated,
          extrapolated / fast);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = bench::threads_argument(argc, argv, 2);
  at::set_num_threads(threads);
  std::printf("bench_models: sigmoid stack, %d threads; target <= 10 ms for the fast path at the paper's scale\n",
              threads);
  if (std::FILE* load = std::fopen("/proc/loadavg", "r")) {
    char line[128] = {};
    if (std::fgets(line, sizeof line, load)) std::printf("load average before the run: %s", line);
    std::fclose(load);
  }
  report("paper scale", 500.0, 10000, {500, 1000});
  report("small", 50.0, 1000, {1000});
  return 0;
}
