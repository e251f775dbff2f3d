#include "cli/passive_openmp_waiting.hpp"

#include <unistd.h>

#include <cstdlib>

namespace noiselearn::cli {

void reexecute_with_passive_openmp_waiting(char** argv) {
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  if (policy != nullptr && *policy != '\0') return;  // libgomp ignores an empty value: replace it
  if (::setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
  ::execv("/proc/self/exe", argv);
  ::unsetenv("OMP_WAIT_POLICY");  // only reached if the execution failed: leave the environment as it was
}

}  // namespace noiselearn::cli
