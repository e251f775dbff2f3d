// --threads: one LibTorch thread by default; more than one wait passively for each other (OpenMP), so that a
// core busy with another process slows a run down instead of stalling every parallel region.
#include <catch2/catch.hpp>

#include "cli/run_noiselearn.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>

namespace fs = std::filesystem;

using namespace noiselearn::testing;
using Catch::Matchers::Contains;

namespace {

// stderr of `noiselearn ARGUMENTS` with libgomp printing the wait settings it starts with (OMP_DISPLAY_ENV).
std::string openmp_settings(const std::string& environment, const std::string& arguments) {
  const fs::path dir = scratch("threads");
  const fs::path err = dir / "stderr.txt";
  const std::string command = "cd '" + dir.string() + "' && env -u OMP_WAIT_POLICY OMP_DISPLAY_ENV=verbose " + environment +
                              " '" + NOISELEARN_BINARY + "' " + arguments + " config-keys > /dev/null 2>'" + err.string() + "'";
  const int status = std::system(command.c_str());
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  std::ifstream in(err);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// The spin count of the process image that ran the command: libgomp prints its settings when it is loaded,
// so a program that starts itself again prints them twice, the last time with the settings it ran with.
std::string spin_count_run_with(const std::string& settings) {
  const std::string key = "GOMP_SPINCOUNT = '";
  const auto at = settings.rfind(key);
  REQUIRE(at != std::string::npos);
  return settings.substr(at + key.size(), settings.find('\'', at + key.size()) - at - key.size());
}

}  // namespace

TEST_CASE("more than one thread waits passively, one thread and a user's OMP_WAIT_POLICY are left alone", "[cli]") {
  // libgomp's default spins 300,000 times before it sleeps; passive waiting spins 0 times; active for ever.
  CHECK(spin_count_run_with(openmp_settings("", "--threads 2")) == "0");
  CHECK(spin_count_run_with(openmp_settings("", "")) == "300000");  // 1 thread: nothing waits, no second start
  CHECK(spin_count_run_with(openmp_settings("OMP_WAIT_POLICY=active", "--threads 2")) == "30000000000");
}

TEST_CASE("the default is one thread", "[cli]") {
  const fs::path dir = scratch("threads-help");
  const Run help = run_noiselearn("--help", dir);
  CHECK_THAT(help.out, Contains("--threads INT=1"));
}
