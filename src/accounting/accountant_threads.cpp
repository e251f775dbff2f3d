#include "accounting/accountant_threads.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

#include "core/errors.hpp"

namespace noiselearn {

namespace {

int default_threads() {
  if (const char* omp = std::getenv("OMP_NUM_THREADS")) {
    char* end = nullptr;
    const long value = std::strtol(omp, &end, 10);
    if (end != omp && *end == '\0' && value >= 1 && value <= 4096) return static_cast<int>(value);
  }
#if defined(__linux__)
  // The processors this process may run on (taskset, cgroups' cpusets), as OpenMP's default counts them.
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0 && CPU_COUNT(&allowed) > 0) return CPU_COUNT(&allowed);
#endif
  const unsigned hardware = std::thread::hardware_concurrency();
  return hardware == 0 ? 1 : static_cast<int>(hardware);
}

std::atomic<int>& setting() {
  static std::atomic<int> threads{default_threads()};
  return threads;
}

}  // namespace

int accountant_threads() { return setting().load(std::memory_order_relaxed); }

void set_accountant_threads(int threads) {
  if (threads < 1) throw InputError(fmt::format("the accountant's thread count {} must be at least 1", threads));
  setting().store(threads, std::memory_order_relaxed);
}

}  // namespace noiselearn
