// noiselearn train / compare / plot as a user meets them.
#include <catch2/catch.hpp>

#include "cli/run_noiselearn.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

using namespace noiselearn::testing;

namespace {

const char* kTinyConfig = R"(grid:
  range: 4
  step: 0.1
model:
  sigmoids: 20
loss:
  kind: soft-pld
  epsilon: 1.0
  compositions: 2
optimiser:
  epochs: 30
  learning_rate: 0.01
output:
  log_every: 10
  checkpoint_every: 10
)";

}  // namespace

TEST_CASE("train writes the whole run directory, certified", "[cli][train]") {
  const fs::path dir = scratch("run");
  std::ofstream(dir / "tiny.yaml") << kTinyConfig;
  const Run run = run_noiselearn("train tiny.yaml --out run", dir);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  for (const char* file : {"config.yaml", "noise.csv", "noise.json", "certificate.csv", "history.csv", "comparison.csv",
                           "comparison_curves.csv", "baseline.csv", "summary.txt", "checkpoint.pt", "plots.gp"})
    CHECK(fs::exists(dir / "run" / file));
  std::ifstream metadata_file(dir / "run" / "noise.json");
  const auto metadata = nlohmann::json::parse(metadata_file);
  CHECK(metadata["certificate"]["compositions"] == 2);
  CHECK(metadata["training"]["epochs_run"] == 30);
  const double upper = metadata["certificate"]["delta_at_epsilon"][0]["delta_upper"];
  const double lower = metadata["certificate"]["delta_at_epsilon"][0]["delta_lower"];
  CHECK(lower <= upper);
  CHECK_THAT(run.out, Catch::Contains("Trained sigmoid-stack"));
  // The resolved config reproduces the run: the same table bit for bit.
  const Run again = run_noiselearn("train run/config.yaml --out again", dir);
  REQUIRE(again.exit_code == 0);
  std::ifstream a(dir / "run" / "noise.csv"), b(dir / "again" / "noise.csv");
  const std::string ta((std::istreambuf_iterator<char>(a)), {}), tb((std::istreambuf_iterator<char>(b)), {});
  CHECK(ta == tb);
}

TEST_CASE("train says when no epsilon certifies a requested delta (distinguishing events exceed it)", "[cli][train]") {
  // A table truncated to [-4, 4] with sensitivity 1 has distinguishing events: composed, their mass omega_n is a
  // floor under delta(epsilon) for every epsilon, so a requested delta below it has no epsilon; above it, one exists.
  const fs::path dir = scratch("run-floor");
  std::ofstream(dir / "tiny.yaml") << kTinyConfig;
  const Run run = run_noiselearn("train tiny.yaml --out run --set certification.deltas=[1e-300,0.5]", dir);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  std::ifstream metadata_file(dir / "run" / "noise.json");
  const auto metadata = nlohmann::json::parse(metadata_file);
  const double omega = metadata["certificate"]["infinity_mass"]["composed"];
  REQUIRE(omega > 1e-300);
  REQUIRE(omega < 0.5);
  CHECK(metadata["certificate"]["epsilon_at_delta"][0]["epsilon_upper"].is_null());
  CHECK(metadata["certificate"]["epsilon_at_delta"][1]["epsilon_upper"].is_number());
  CHECK_THAT(run.out, Catch::Contains("no epsilon certifies delta = 1e-300 (distinguishing events alone: "));
  CHECK_THAT(run.out, Catch::Contains("epsilon(0.5) <= "));
}

TEST_CASE("train refuses a non-empty run directory, --force overwrites, --resume continues", "[cli][train]") {
  const fs::path dir = scratch("resume");
  std::ofstream(dir / "tiny.yaml") << kTinyConfig;
  REQUIRE(run_noiselearn("train tiny.yaml --out run", dir).exit_code == 0);
  const Run refused = run_noiselearn("train tiny.yaml --out run", dir);
  CHECK(refused.exit_code == 2);
  CHECK_THAT(error_line(refused), Catch::Contains("run is not empty"));
  const Run resumed = run_noiselearn("train tiny.yaml --out run --resume --set optimiser.epochs=50", dir);
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  CHECK_THAT(resumed.err, Catch::Contains("resuming from") && Catch::Contains("at epoch 30"));
  std::ifstream metadata_file(dir / "run" / "noise.json");
  CHECK(nlohmann::json::parse(metadata_file)["training"]["epochs_run"] == 20);
  CHECK(run_noiselearn("train tiny.yaml --out run --force", dir).exit_code == 0);
  CHECK(run_noiselearn("train tiny.yaml --out fresh --resume", dir).exit_code == 2);
}

TEST_CASE("bad configs: one-line error naming the key, exit code 2", "[cli][train][errors]") {
  const fs::path dir = scratch("errors");
  std::ofstream(dir / "unknown.yaml") << "loss:\n  epsilom: 1\n";
  std::ofstream(dir / "type.yaml") << "grid:\n  step: small\n";
  std::ofstream(dir / "sensitivity.yaml") << "grid:\n  range: 4\n  step: 0.3\n";
  std::ofstream(dir / "broken.yaml") << "grid: [1, 2\n";
  std::ofstream(dir / "tiny.yaml") << kTinyConfig;
  struct Case {
    std::string arguments, culprit;
  };
  for (const Case& c : {Case{"train unknown.yaml", "unknown.yaml:2: unknown key 'loss.epsilom' (valid: loss.kind"},
                        Case{"train type.yaml", "type.yaml:2: grid.step must be a number (got 'small')"},
                        Case{"train sensitivity.yaml", "not a whole number of grid steps"},
                        Case{"train broken.yaml", "broken.yaml:"},
                        Case{"train missing.yaml", "missing.yaml"},
                        Case{"train tiny.yaml --set loss.kind=magic", "loss.kind = 'magic' is not valid"},
                        Case{"train tiny.yaml --set model.init=uniform", "model.init = uniform is for the logit models"},
                        Case{"train tiny.yaml --set pair.sensitivity=0.05", "pair.sensitivity 0.05 is not a whole number of grid steps"},
                        Case{"plot .", "has no noise.csv"}}) {
    const Run run = run_noiselearn(c.arguments, dir);
    INFO(c.arguments << "\n" << run.err);
    CHECK(run.exit_code == 2);
    const std::string line = error_line(run);
    CHECK_THAT(line, Catch::Contains(c.culprit));
    CHECK(line.find('\n') == line.size() - 1);
  }
}

TEST_CASE("compare prints tables side by side with the matched truncated Gaussian", "[cli]") {
  const fs::path dir = scratch("compare");
  REQUIRE(run_noiselearn("baseline laplace --scale 2 --grid-step 0.05 --range 30 --out a.csv", dir).exit_code == 0);
  REQUIRE(run_noiselearn("baseline truncated-gaussian --sigma 2 --truncation 10 --grid-step 0.05 --range 30 --out b.csv", dir).exit_code == 0);
  const Run run = run_noiselearn("compare a.csv b.csv --sensitivity 1 -n 4 --epsilon 1 --out c.csv", dir);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::Contains("a.csv") && Catch::Contains("b.csv"));
  std::ifstream csv(dir / "c.csv");
  std::string header;
  std::getline(csv, header);
  CHECK_THAT(header, Catch::StartsWith("table,l1,delta_upper"));
}

TEST_CASE("the README's config-key table is exactly what config-keys prints (every key, default and unit)", "[cli][docs]") {
  const Run run = run_noiselearn("config-keys", scratch("config-keys"));
  REQUIRE(run.exit_code == 0);
  REQUIRE_THAT(run.out, Catch::StartsWith("| key | default | unit | meaning |"));
  std::ifstream readme_file(NOISELEARN_README);
  REQUIRE(readme_file);
  const std::string readme((std::istreambuf_iterator<char>(readme_file)), {});
  // Line by line, so that a failure names the key that is missing or out of date.
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);) {
    INFO("regenerate the README table with `noiselearn config-keys`");
    CHECK_THAT(readme, Catch::Contains(line + "\n"));
  }
}
