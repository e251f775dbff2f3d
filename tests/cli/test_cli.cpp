// The noiselearn executable as a user meets it: exit codes, one-line errors naming the culprit, outputs.
#include <catch2/catch.hpp>

#include "cli/run_noiselearn.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>

namespace fs = std::filesystem;

using namespace noiselearn::testing;

namespace {

void write(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("help exits 0 and lists the commands", "[cli]") {
  const fs::path dir = scratch("help");
  const Run top = run_noiselearn("--help", dir);
  CHECK(top.exit_code == 0);
  CHECK_THAT(top.out, Catch::Contains("baseline") && Catch::Contains("evaluate"));
  const Run evaluate = run_noiselearn("evaluate --help", dir);
  CHECK(evaluate.exit_code == 0);
  CHECK_THAT(evaluate.out, Catch::Contains("--sensitivity") && Catch::Contains("--loss-step"));
}

TEST_CASE("baseline then evaluate reproduces Gilani et al.'s Gaussian epsilon, as text and JSON", "[cli]") {
  const fs::path dir = scratch("gaussian");
  const Run baseline = run_noiselearn("baseline gaussian --sigma 5 --grid-step 0.01 --range 200 --out g.csv", dir);
  REQUIRE(baseline.exit_code == 0);
  CHECK(fs::exists(dir / "g.csv"));
  CHECK(fs::exists(dir / "g.json"));
  const Run json = run_noiselearn("evaluate g.csv --sensitivity 1 -n 10 --delta 1e-6 --epsilon 1 --json --curve c.csv", dir);
  REQUIRE(json.exit_code == 0);
  const auto certificate = nlohmann::json::parse(json.out);
  CHECK(certificate["compositions"] == 10);
  const auto& at = certificate["epsilon_at_delta"][0];
  CHECK(at["delta"] == 1e-6);
  CHECK(at["epsilon_lower"].get<double>() <= 2.9216 + 5e-4);
  CHECK(at["epsilon_upper"].get<double>() >= 2.9216 - 5e-4);
  CHECK(at["epsilon_upper"].get<double>() - at["epsilon_lower"].get<double>() < 1e-3);
  CHECK(certificate["delta_at_epsilon"][0]["epsilon"] == 1.0);
  // The curve file: header plus the default 201 points, upper >= lower on every row.
  std::ifstream curve(dir / "c.csv");
  std::string line;
  std::getline(curve, line);
  CHECK(line == "epsilon,delta_upper,delta_lower");
  int rows = 0;
  while (std::getline(curve, line)) {
    double eps = 0, upper = 0, lower = 0;
    REQUIRE(std::sscanf(line.c_str(), "%lf,%lf,%lf", &eps, &upper, &lower) == 3);
    CHECK(upper >= lower);
    ++rows;
  }
  CHECK(rows == 201);
  const Run text = run_noiselearn("evaluate g.csv --sensitivity 1 -n 10 --delta 1e-6", dir);
  CHECK(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("epsilon in [2.921"));
}

TEST_CASE("baseline --compositions stores the same certificate in the table's JSON", "[cli]") {
  const fs::path dir = scratch("certified");
  REQUIRE(run_noiselearn("baseline laplace --scale 2 --grid-step 0.05 --range 60 --out t.csv --sensitivity 1 -n 4 --delta 1e-5",
                     dir).exit_code == 0);
  std::ifstream in(dir / "t.json");
  const auto metadata = nlohmann::json::parse(in);
  REQUIRE(metadata.contains("certificate"));
  REQUIRE(metadata.contains("utility"));
  CHECK(metadata["utility"]["l1"].get<double>() == Approx(2.0).epsilon(1e-3));
  const Run json = run_noiselearn("evaluate t.csv --sensitivity 1 -n 4 --delta 1e-5 --json", dir);
  REQUIRE(json.exit_code == 0);
  CHECK(nlohmann::json::parse(json.out) == metadata["certificate"]);
}

TEST_CASE("calibration through the CLI: a target utility and a target certified delta", "[cli]") {
  const fs::path dir = scratch("calibrate");
  REQUIRE(run_noiselearn("baseline truncated-gaussian --target-utility l2=2 --truncation 5 --grid-step 0.01 --range 6 --out u.csv",
                     dir).exit_code == 0);
  std::ifstream u(dir / "u.json");
  CHECK(nlohmann::json::parse(u)["utility"]["l2"].get<double>() == Approx(2.0).epsilon(1e-8));
  const Run delta = run_noiselearn(
      "baseline gaussian --target-delta 1e-6 --target-epsilon 1 --sensitivity 1 -n 4 --grid-step 0.02 --range 100 --out d.csv", dir);
  REQUIRE(delta.exit_code == 0);
  std::ifstream d(dir / "d.json");
  const auto metadata = nlohmann::json::parse(d);
  CHECK(metadata["certificate"]["delta_at_epsilon"][0]["delta_upper"].get<double>() <= 1e-6);
}

TEST_CASE("bad input: one-line error naming the culprit, exit code 2", "[cli][errors]") {
  const fs::path dir = scratch("errors");
  REQUIRE(run_noiselearn("baseline gaussian --sigma 1 --grid-step 0.01 --range 10 --out g.csv", dir).exit_code == 0);
  write(dir / "sum.csv", "x,p\n0,0.5\n1,0.6\n");
  write(dir / "nan.csv", "x,p\n0,0.5\n1,nan\n");
  write(dir / "negative.csv", "x,p\n0,1.5\n1,-0.5\n");
  write(dir / "uneven.csv", "0,0.25\n1,0.25\n3,0.5\n");
  write(dir / "text.csv", "x,p\n0,0.5\n1,half\n");
  struct Case {
    std::string arguments, culprit;
  };
  for (const Case& c : {
           Case{"evaluate g.csv", "--sensitivity"},
           Case{"evaluate g.csv --sensitivity 0.015", "sensitivity 0.015 is not a whole number of grid steps"},
           Case{"evaluate missing.csv --sensitivity 1", "missing.csv"},
           Case{"evaluate sum.csv --sensitivity 1", "sum.csv: probabilities sum to"},
           Case{"evaluate nan.csv --sensitivity 1", "nan.csv:3"},
           Case{"evaluate negative.csv --sensitivity 1", "negative.csv:3"},
           Case{"evaluate uneven.csv --sensitivity 1", "uneven.csv:2"},
           Case{"evaluate text.csv --sensitivity 1", "text.csv:3"},
           Case{"evaluate g.csv --sensitivity 1 --delta 0", "delta 0"},
           Case{"evaluate g.csv --sensitivity 1 --epsilon -1", "epsilon -1"},
           Case{"evaluate g.csv --sensitivity 1 -n 0", "compositions 0"},
           Case{"evaluate g.csv --sensitivity abc", "--sensitivity"},
           Case{"evaluate g.csv --sensitivity 1 --unknown-option 3", "--unknown-option"},
           Case{"evaluate g.csv --sensitivity 1 --pair subsampled --sampling-rate 0", "--sampling-rate"},
           Case{"evaluate g.csv --sensitivity 1 --shifts some", "shift policy 'some'"},
           Case{"evaluate g.csv --sensitivity 1 --upper-method fancy", "upper-bound method 'fancy'"},
           Case{"evaluate g.csv --sensitivity 1 --loss-step 0", "loss step 0"},
           Case{"baseline gaussian --sigma 1 --grid-step 0.01 --range 10 --out g.csv", "refusing to overwrite existing file g.csv"},
           Case{"baseline gausian --sigma 1 --grid-step 0.01 --range 10 --out h.csv", "unknown baseline 'gausian'"},
           Case{"baseline gaussian --grid-step 0.01 --range 10 --out h.csv", "needs --sigma"},
           Case{"baseline gaussian --sigma -1 --grid-step 0.01 --range 10 --out h.csv", "sigma"},
           Case{"baseline gaussian --sigma 1 --grid-step 0.3 --range 1 --out h.csv", "range 1 is not a whole number of grid steps"},
           Case{"baseline gaussian --target-utility l3=2 --grid-step 0.1 --range 10 --out h.csv", "l3"},
           Case{"baseline truncated-gaussian --target-utility l2=50 --grid-step 0.1 --range 10 --out h.csv", "out of reach"},
           Case{"--threads 0 evaluate g.csv --sensitivity 1", "--threads"},
       }) {
    const Run run = run_noiselearn(c.arguments, dir);
    INFO(c.arguments << "\nstderr: " << run.err);
    CHECK(run.exit_code == 2);
    const std::string line = error_line(run);
    CHECK_THAT(line, Catch::Contains(c.culprit));
    // One line: the error message ends at the first newline.
    CHECK(line.find('\n') == line.size() - 1);
  }
  // Nothing was written for the failed commands.
  CHECK_FALSE(fs::exists(dir / "h.csv"));
}
