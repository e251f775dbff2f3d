#pragma once
// Passive OpenMP waiting for runs on more than one thread (`--threads N`, N > 1).
//
// LibTorch runs its parallel regions on GNU OpenMP, whose threads spin while they wait for each other. When
// one of the cores also runs another process, every parallel region waits for the thread that shares a core
// with it while the others keep their cores busy spinning, so a region lasts as long as the scheduler lets the
// neighbour run (src/cli/README.md, "`--threads` and speed", has the figures). Threads that sleep while they wait
// (OMP_WAIT_POLICY=passive) free their core for the thread the region waits for.
//
// libgomp reads OMP_WAIT_POLICY once, when it is loaded with LibTorch, before main runs: a setenv in main
// comes too late. So the program is executed again with the variable in its environment. That costs one more
// start (loading LibTorch again), which is why the default of one thread (no OpenMP waits at all) does not pay it.
namespace noiselearn::cli {

// Unless the environment sets OMP_WAIT_POLICY (a user's explicit choice stands), executes /proc/self/exe
// again with `argv` and OMP_WAIT_POLICY=passive added to the environment; does not return then. Returns if the
// variable is set or the execution fails (no /proc): the program runs on as it is.
void reexecute_with_passive_openmp_waiting(char** argv);

}  // namespace noiselearn::cli
