#pragma once
// How many threads the accountant's parallel loops use (the exact adaptive programme's window chunks,
// adaptive_composition.cpp). The command line's --threads sets it (with LibTorch's own count, for the learners);
// the default is OMP_NUM_THREADS when that is a positive whole number, else the processors the process may run on
// (as OpenMP counts them: LibTorch's default, which the accountant used before it had its own). Results never
// depend on it: every value is summed by one thread in one order.
namespace noiselearn {

int accountant_threads();
void set_accountant_threads(int threads);  // at least 1 (InputError otherwise)

}  // namespace noiselearn
