// End-to-end pins of `noiselearn train`: one small config per optimiser and lifecycle (Adam on the sigmoid stack in
// fixed and target mode, the preconditioned gradient on a Renyi family, the convex HRDP program plain and with
// target.mode delta), each run directory compared file by file with the one recorded in tests/cli/pins/<case>/.
//
// These pin today's behaviour so that moving the run lifecycle between layers changes nothing a user sees. What is
// compared: the list of files (plots and the binary checkpoint by name only); every text file and stdout with run
// times masked ("0.4 s" -> "<time> s"; the `seconds` column of history.csv and `seconds` keys of the JSON files left
// out) and the JSON checksum of noise.csv left out (noise.csv itself is compared). Text between numbers must match
// exactly; numbers to 1e-9 relative, so that a change of summation order (1e-16) passes and any change of behaviour
// fails. To record new pins after an intended change: NOISELEARN_UPDATE_PINS=1 test_cli "[pins]", and say why in the
// commit.
#include <catch2/catch.hpp>

#include "cli/pin_comparison.hpp"
#include "cli/run_noiselearn.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace noiselearn::testing;

namespace {

const fs::path kPins = fs::path(NOISELEARN_TEST_SCRIPTS) / "pins";

bool binary_file(const fs::path& path) {
  const std::string ext = path.extension().string();
  return ext == ".png" || ext == ".pt";
}

std::vector<fs::path> files_of(const fs::path& directory) {
  std::vector<fs::path> names;
  for (const auto& entry : fs::directory_iterator(directory)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

void check_pin(const std::string& name) {
  const fs::path pin = kPins / name;
  const fs::path dir = scratch("pin-" + name);
  fs::copy_file(pin / "input.yaml", dir / "input.yaml");
  const Run run = run_noiselearn("train input.yaml --out run", dir);
  INFO(name << ": " << run.err);
  REQUIRE(run.exit_code == 0);
  const fs::path recorded = pin / "run";
  std::ofstream(dir / "stdout.txt") << run.out;
  std::vector<fs::path> produced = files_of(dir / "run");
  produced.push_back("stdout.txt");
  std::sort(produced.begin(), produced.end());
  auto source_of = [&](const fs::path& file) { return file == "stdout.txt" ? dir / file : dir / "run" / file; };
  if (std::getenv("NOISELEARN_UPDATE_PINS")) {
    fs::remove_all(recorded);
    fs::create_directories(recorded);
    for (const auto& file : produced) {
      if (binary_file(file))
        std::ofstream(recorded / (file.string() + ".exists")) << "";
      else
        std::ofstream(recorded / file, std::ios::binary) << normalised(source_of(file));
    }
    WARN("recorded the pins of " << name << " in " << recorded);
    return;
  }
  REQUIRE(fs::exists(recorded));
  std::vector<fs::path> expected;
  for (const auto& file : files_of(recorded)) {
    const std::string s = file.string();
    expected.push_back(s.size() > 7 && s.substr(s.size() - 7) == ".exists" ? fs::path(s.substr(0, s.size() - 7))
                                                                           : file);
  }
  std::sort(expected.begin(), expected.end());
  CHECK(produced == expected);
  for (const auto& file : produced) {
    if (binary_file(file) || !fs::exists(recorded / file)) continue;
    INFO("file " << file);
    CHECK(difference(read_text(recorded / file), normalised(source_of(file))) == "");
  }
}

}  // namespace

TEST_CASE("pins: the number comparison tells a change of behaviour from a change of summation order", "[cli][pins]") {
  CHECK(difference("delta 0.0427302 at eps 1", "delta 0.04273020000000001 at eps 1") == "");
  CHECK(difference("delta 0.0427302 at eps 1", "delta 0.0427303 at eps 1") != "");
  CHECK(difference("delta 0.0427302 at eps 1", "delta 0.0427302 at epsilon 1") != "");
  CHECK(difference("a 1, b 2", "a 1, b 2, c 3") != "");
  CHECK(mask_times("in 0.4 s. Run") == "in <time> s. Run");
  CHECK(drop_seconds_column("epoch,loss,seconds\n0,1.5,0.01\n") == "epoch,loss\n0,1.5\n");
}

TEST_CASE("pins: train with Adam on the sigmoid stack (fixed epochs) writes today's run directory", "[cli][pins]") {
  check_pin("adam-fixed");
}

TEST_CASE("pins: train with Adam in target mode (utility-weight search) writes today's run directory", "[cli][pins]") {
  check_pin("adam-target");
}

TEST_CASE("pins: train with the preconditioned gradient on a Renyi family writes today's run directory",
          "[cli][pins]") {
  check_pin("pgd");
}

TEST_CASE("pins: train with the convex HRDP program writes today's run directory", "[cli][pins]") {
  check_pin("convex");
}

TEST_CASE("pins: train with the convex HRDP program in target mode (budget bisection) writes today's run directory",
          "[cli][pins]") {
  check_pin("convex-target");
}
