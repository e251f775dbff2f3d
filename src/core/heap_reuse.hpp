#pragma once
// Freed heap memory kept for reuse (a process-wide setting, for programs that own their process: the CLI and the
// benchmarks call it first thing in main; the library never does).
//
// A training epoch allocates and frees tensors of 0.5-1 MB (a 60,001-point table is 480 KB) hundreds of times.
// With glibc's defaults such blocks are mapped and unmapped, or the heap top is trimmed after frees, so each epoch
// pays page faults to zero fresh pages again (tests/benchmarks/README.md, "Freed heap memory kept for reuse").
// Raising the mmap threshold to 32 MB and the trim threshold to 512 MB
// keeps those pages in the heap for the next epoch; the cost is that the process's resident memory stays at its
// peak until it exits. Other C libraries: nothing happens.
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace noiselearn {

inline void keep_freed_heap_memory_for_reuse() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, 512 * 1024 * 1024);
#endif
}

}  // namespace noiselearn
