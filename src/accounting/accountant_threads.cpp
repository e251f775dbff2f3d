#include "accounting/accountant_threads.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
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

void run_jobs(const std::vector<std::function<void()>>& jobs) {
  const size_t workers = std::min<size_t>(static_cast<size_t>(std::max(1, accountant_threads())), jobs.size());
  if (workers <= 1) {
    for (const auto& job : jobs) job();
    return;
  }
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto work = [&] {
    for (size_t i = next.fetch_add(1); i < jobs.size(); i = next.fetch_add(1)) {
      try {
        jobs[i]();
      } catch (...) {
        const std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace noiselearn
