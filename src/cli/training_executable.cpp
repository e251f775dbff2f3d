#include "cli/training_executable.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "cli/cli_common.hpp"

namespace noiselearn::cli {

namespace {

char** remembered = nullptr;
int remembered_threads = 1;

}  // namespace

void remember_arguments(char** argv, int threads) {
  remembered = argv;
  remembered_threads = threads;
}

void execute_training_executable() {
  if (remembered == nullptr) throw std::logic_error("execute_training_executable: remember_arguments was not called");
  const std::filesystem::path training = this_executable().parent_path() / "noiselearn-train";
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  if (remembered_threads > 1 && (policy == nullptr || *policy == '\0')) ::setenv("OMP_WAIT_POLICY", "passive", 1);
  std::fflush(stdout);
  std::fflush(stderr);
  ::execv(training.c_str(), remembered);
  const int reason = errno;
  throw std::runtime_error(
      fmt::format("cannot start {} (training runs there, with LibTorch): {}; rebuild or reinstall noiselearn",
                  training.string(), std::strerror(reason)));
}

}  // namespace noiselearn::cli
