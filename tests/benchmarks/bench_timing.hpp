#pragma once
// Timing helpers shared by the benchmark executables.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace noiselearn::bench {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Timing {
  double best = 0.0;    // the figure to compare (least disturbed by a shared machine)
  double median = 0.0;  // shows the noise
};

// `repetitions` timings of f after `warm_ups` untimed runs (a training loop runs in the steady state: thread
// pool started, allocator adapted).
template <typename F>
Timing time_of(int warm_ups, int repetitions, F&& f) {
  for (int w = 0; w < warm_ups; ++w) f();
  std::vector<double> times;
  for (int r = 0; r < repetitions; ++r) {
    const auto start = std::chrono::steady_clock::now();
    f();
    times.push_back(seconds_since(start));
  }
  std::sort(times.begin(), times.end());
  return {times.front(), times[times.size() / 2]};
}

// The value of "--threads N" among the arguments, or `fallback`.
inline int threads_argument(int argc, char** argv, int fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--threads") == 0) return std::atoi(argv[i + 1]);
  return fallback;
}

}  // namespace noiselearn::bench
