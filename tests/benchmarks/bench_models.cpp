// Benchmark of the sigmoid-stack model (Sommer et al., eq. 4): forward + backward of log p through the fused
// evaluation (the default) and the fast exact evaluation by tensor operations (its reference), against the direct
// (E/2 × K) matrix, at the paper's scale (grid [-500, 500], step 1/60,
// E = 60,001, K = 10,000; target <= 10 ms on 2 threads) and at E = 6,001, K = 1,000.
// The direct evaluation at the paper's scale needs ~10 GB; it is timed at K = 500 and 1,000 on the same grid and
// extrapolated linearly in K (its cost is proportional to E K), as printed.
// Then the fast path at 1 thread (noiselearn's default) and on all cores, without and with one busy neighbour
// (a child process spinning on one core, like `yes > /dev/null`): the figures behind the default thread
// policy (README, "--threads and speed"). Like noiselearn on more than one thread, this executable waits for
// OpenMP threads passively (src/cli/passive_openmp_waiting.hpp); OMP_WAIT_POLICY=active in the environment
// shows the spinning waits of before.
// Figures are wall-clock; the load average printed first says whether other processes shared the cores.
// Run: ./build/tests/benchmarks/bench_models [--threads N] [--fast-only]   (N: threads of the first part, default 1)
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "bench_timing.hpp"
#include "cli/passive_openmp_waiting.hpp"
#include "core/heap_reuse.hpp"
#include "models/sigmoid_stack.hpp"

using namespace noiselearn;

namespace {

// Median wall time of `repetitions` runs after one warm-up run.
template <typename F>
double median_seconds(int repetitions, F&& f) {
  return bench::time_of(1, repetitions, f).median;
}

enum class Evaluation { kFused, kFast, kDirect };

// One training step's worth of work: log p, a scalar loss with every log p in it, and its gradient.
double forward_backward_seconds(SigmoidStack& model, Evaluation evaluation, int repetitions) {
  const torch::Tensor weights = torch::rand({model.grid().size}, torch::kDouble);
  return median_seconds(repetitions, [&] {
    model.zero_grad();
    const torch::Tensor log_p = evaluation == Evaluation::kFused  ? model.forward_fused()
                                : evaluation == Evaluation::kFast ? model.forward_fast()
                                                                  : model.forward_direct();
    (log_p * weights).sum().backward();
  });
}
double forward_backward_seconds(SigmoidStack& model, bool fast, int repetitions) {
  return forward_backward_seconds(model, fast ? Evaluation::kFast : Evaluation::kDirect, repetitions);
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
  const double fused = forward_backward_seconds(*model, Evaluation::kFused, 21);
  const double fast = forward_backward_seconds(*model, true, 21);
  std::printf("%s: E = %lld, K = %lld, C = 500\n", label, static_cast<long long>(grid.size),
              static_cast<long long>(sigmoids));
  std::printf("  fused (the default)         forward+backward  %10.3f ms  (median of 21)\n", 1e3 * fused);
  std::printf("  fast exact, tensor operations  forward+backward  %10.3f ms  (median of 21)   fused speed-up %.1fx\n",
              1e3 * fast, fast / fused);
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

// A process that keeps one core busy until it is killed (the neighbour of the issue: `yes > /dev/null`).
class BusyNeighbour {
 public:
  BusyNeighbour() : pid_(::fork()) {
    if (pid_ == 0) {
      volatile unsigned long spins = 0;
      for (;;) spins = spins + 1;
    }
    ::usleep(200000);  // let the scheduler place it
  }
  ~BusyNeighbour() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  BusyNeighbour(const BusyNeighbour&) = delete;
  BusyNeighbour& operator=(const BusyNeighbour&) = delete;

 private:
  pid_t pid_;
};

void report_threads(int all_cores) {
  const Grid grid = Grid::symmetric(500.0, 1.0 / 60.0);
  const auto model = make_model(grid, 10000);
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  std::printf("threads and a busy neighbour: fast path at the paper's scale, median of 21 (OMP_WAIT_POLICY=%s)\n",
              policy ? policy : "unset");
  std::printf("  %-24s %14s %18s\n", "", "no neighbour", "one busy process");
  for (int threads : {1, all_cores}) {
    at::set_num_threads(threads);
    const double alone = forward_backward_seconds(*model, true, 21);
    double shared = 0.0;
    {
      BusyNeighbour neighbour;
      shared = forward_backward_seconds(*model, true, 21);
    }
    std::printf("  %-24s %11.1f ms %15.1f ms\n",
                (std::to_string(threads) + (threads == 1 ? " thread (default)" : " threads (all cores)")).c_str(),
                1e3 * alone, 1e3 * shared);
    if (all_cores == 1) break;
  }
  std::printf(
      "  yardstick: target 10 ms; before (2 threads, spinning waits) 9.8 ms alone, 528 ms with a busy neighbour\n");
}

}  // namespace

int main(int argc, char** argv) {
  noiselearn::keep_freed_heap_memory_for_reuse();                // as the CLI (core/heap_reuse.hpp)
  noiselearn::cli::reexecute_with_passive_openmp_waiting(argv);  // as noiselearn --threads N > 1 does
  const int all_cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = bench::threads_argument(argc, argv, 1);  // noiselearn's default
  at::set_num_threads(threads);
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  std::printf(
      "bench_models: sigmoid stack, %d threads (OMP_WAIT_POLICY=%s); target <= 10 ms for the fast path at the "
      "paper's scale\n",
      threads, policy ? policy : "unset");
  if (std::FILE* load = std::fopen("/proc/loadavg", "r")) {
    char line[128] = {};
    if (std::fgets(line, sizeof line, load)) std::printf("load average before the run: %s", line);
    std::fclose(load);
  }
  bool fast_only = false;
  for (int i = 1; i < argc; ++i) fast_only = fast_only || std::strcmp(argv[i], "--fast-only") == 0;
  report("paper scale", 500.0, 10000, fast_only ? std::vector<int64_t>{} : std::vector<int64_t>{500, 1000});
  if (!fast_only) report("small", 50.0, 1000, {1000});
  report_threads(all_cores);
  return 0;
}
