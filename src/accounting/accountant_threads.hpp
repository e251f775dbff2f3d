#pragma once
// How many threads the accountant's parallel loops use (the exact adaptive programme's window chunks,
// adaptive_composition.cpp). The command line's --threads sets it (with LibTorch's own count, for the learners);
// the default is OMP_NUM_THREADS when that is a positive whole number, else the processors the process may run on
// (as OpenMP counts them, LibTorch's default). Results never depend on it: every value is summed by one thread in one
// order.
#include <functional>
#include <vector>

namespace noiselearn {

int accountant_threads();
void set_accountant_threads(int threads);  // at least 1 (InputError otherwise)

// Runs independent jobs (the compositions of a certificate's directions and scenarios) on up to accountant_threads()
// threads, the calling one included; the first exception a job throws is rethrown after all have stopped. Each job
// computes what it would alone, so the results do not depend on the number of threads.
void run_jobs(const std::vector<std::function<void()>>& jobs);

}  // namespace noiselearn
