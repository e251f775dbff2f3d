#include "run/solver_run.hpp"

#include "io/run_directory.hpp"

namespace noiselearn {

std::filesystem::path SolverRunOptions::run_directory(const std::string& command) const {
  if (!directory.empty()) return directory;
  return std::filesystem::path("runs") /
         (config_path.empty() ? std::filesystem::path(command) : std::filesystem::path(config_path).stem());
}

std::unique_ptr<RunDirectoryLock> open_run_directory(const std::filesystem::path& directory, bool force) {
  prepare_run_directory(directory, force);
  return std::make_unique<RunDirectoryLock>(directory);
}

}  // namespace noiselearn
