// --threads: one LibTorch thread by default; more than one wait passively for each other (OpenMP), so that a
// core busy with another process slows a run down instead of stalling every parallel region. Only training loads
// LibTorch and its OpenMP (noiselearn-train, src/cli/training_executable.hpp).
#include <catch2/catch.hpp>

#include "cli/run_noiselearn.hpp"

#include <sys/wait.h>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;

using namespace noiselearn::testing;
using Catch::Matchers::Contains;

namespace {

// stderr of `noiselearn ARGUMENTS COMMAND` with libgomp printing the wait settings it starts with (OMP_DISPLAY_ENV).
// OpenMP comes with LibTorch, which only the training executable loads: a one-epoch training of a tiny table by
// default, which `noiselearn` hands to noiselearn-train.
std::string openmp_settings(const std::string& environment, const std::string& arguments,
                            const std::string& command_line = "train tiny.yaml --out run --force") {
  const fs::path dir = scratch("threads");
  write(dir / "tiny.yaml",
        "grid: {range: 2, step: 1}\nmodel: {sigmoids: 2}\noptimiser: {epochs: 1}\noutput: {plots: false}\n");
  const fs::path err = dir / "stderr.txt";
  const std::string command = "cd '" + dir.string() + "' && env -u OMP_WAIT_POLICY OMP_DISPLAY_ENV=verbose " +
                              environment + " '" + NOISELEARN_BINARY + "' " + arguments + " " + command_line +
                              " > /dev/null 2>'" + err.string() + "'";
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

TEST_CASE("the commands that do not train load no LibTorch, hence no OpenMP, at any --threads", "[cli]") {
  CHECK_THAT(openmp_settings("", "--threads 2", "config-keys"), !Contains("GOMP_SPINCOUNT"));
  CHECK_THAT(openmp_settings("", "", "baseline gaussian --sigma 2 --grid-step 1 --range 10 --out g.csv --force"),
             !Contains("GOMP_SPINCOUNT"));
}

TEST_CASE("the default is one thread", "[cli]") {
  const fs::path dir = scratch("threads-help");
  const Run help = run_noiselearn("--help", dir);
  CHECK_THAT(help.out, Contains("--threads INT=1"));
}

TEST_CASE("train without noiselearn-train next to noiselearn fails with exit 1 naming the missing file", "[cli]") {
  const fs::path dir = scratch("lone-executable");
  fs::copy_file(NOISELEARN_BINARY, dir / "noiselearn");
  fs::permissions(dir / "noiselearn", fs::perms::owner_all);
  write(dir / "tiny.yaml",
        "grid: {range: 2, step: 1}\nmodel: {sigmoids: 2}\noptimiser: {epochs: 1}\noutput: {plots: false}\n");
  const int status = shell("cd '" + dir.string() + "' && ./noiselearn train tiny.yaml --out run 2> err.txt");
  CHECK(status == 1);
  const std::string err = read_text(dir / "err.txt");
  CHECK_THAT(err, Contains("cannot start " + (dir / "noiselearn-train").string()));
  CHECK(std::count(err.begin(), err.end(), '\n') == 1);
  CHECK_FALSE(fs::exists(dir / "run"));
  // The other commands need nothing else.
  CHECK(shell("cd '" + dir.string() + "' && ./noiselearn config-keys > keys.txt") == 0);
}
