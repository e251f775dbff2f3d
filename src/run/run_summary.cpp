#include "run/run_summary.hpp"

#include <fmt/format.h>

namespace noiselearn {

std::string RunSummary::report() const {
  if (skipped) return fmt::format("Skipped: {} already holds this run, complete.\n", directory.string());
  return (certificate ? certificate->report() + "\n" : std::string()) + paragraph;
}

}  // namespace noiselearn
