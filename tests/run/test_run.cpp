// The run layer as a C++ user calls it (run/run.hpp): Options in, Summary out, the run directory written, bad input
// refused before anything exists. The end-to-end pins of every optimiser's files are in tests/cli/test_cli_pins.cpp.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "accounting/pair_accountant.hpp"
#include "accounting/refinement.hpp"
#include "core/errors.hpp"
#include "io/table_files.hpp"
#include "run/lp_optimum_run.hpp"
#include "run/run.hpp"

namespace fs = std::filesystem;
using namespace noiselearn;

namespace {

fs::path fresh_directory(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("noiselearn-test-run-" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// The least-E[e^2] one-sided table on {0..100} with HRDP epsilon 4 at delta 1e-5 after 10 releases.
const char* kConvexConfig = R"(grid:
  range: 100
  step: 1
model:
  kind: free-logits
  support: one-sided
pair:
  sensitivity: 1
loss:
  kind: hrdp
  epsilon: 4
  delta: 1.0e-5
  compositions: 10
  alpha: 0
utility:
  kind: second-moment
optimiser:
  kind: convex
certification:
  deltas: [1.0e-5]
  loss_step: 1.0e-3
output:
  plots: false
)";

RunOptions options_in(const fs::path& dir) {
  std::ofstream(dir / "config.yaml") << kConvexConfig;
  RunOptions options;
  options.config_path = (dir / "config.yaml").string();
  options.directory = dir / "run";
  return options;
}

}  // namespace

TEST_CASE(
    "run: a C++ caller gets the certified table, and the certificate is the accountant's and within the HRDP guarantee",
    "[run]") {
  const fs::path dir = fresh_directory("library-call");
  const RunSummary summary = run(options_in(dir));
  REQUIRE_FALSE(summary.skipped);
  REQUIRE_FALSE(summary.stopped_early);
  REQUIRE(summary.table);
  REQUIRE(summary.certificate);
  // What was written is what was returned.
  const LoadedTable written = read_noise_table(dir / "run" / "noise.csv");
  REQUIRE(written.table.probabilities() == summary.table->probabilities());
  CHECK(fs::exists(dir / "run" / "summary.txt"));
  CHECK(fs::exists(dir / "run" / "certificate.csv"));
  CHECK(summary.report().find(summary.paragraph) != std::string::npos);
  // The certificate is the certified accountant's, recomputed here independently of the run.
  const EpsilonAtDelta& certified = summary.certificate->epsilons.front();
  CHECK(certified.delta == 1e-5);
  PairSpecification pair;
  pair.sensitivity = 1.0;
  AccountantOptions accountant;
  accountant.loss_step = 1e-3;
  PairBounds bounds = account(make_pair_family(*summary.table, pair), 10, accountant);
  bounds = refined_for_delta(std::move(bounds), 1e-5);
  CHECK(bounds.epsilon_upper(1e-5) == Approx(certified.epsilon_upper).epsilon(1e-12));
  CHECK(bounds.epsilon_lower(1e-5) == Approx(certified.epsilon_lower).epsilon(1e-12));
  // Hybrid Renyi DP at (4, 1e-5) implies (4, 1e-5)-DP, so the exact epsilon(1e-5), which the lower bound does not
  // exceed, is at most 4; the bracket is ordered.
  CHECK(certified.epsilon_lower <= 4.0);
  CHECK(certified.epsilon_lower <= certified.epsilon_upper);
}

TEST_CASE("run: skip_if_complete skips exactly the same complete run and trains a changed one", "[run]") {
  const fs::path dir = fresh_directory("skip");
  RunOptions options = options_in(dir);
  run(options);
  options.skip_if_complete = true;
  const RunSummary again = run(options);
  CHECK(again.skipped);
  CHECK(again.report().find("Skipped:") == 0);
  options.overrides = {"loss.epsilon=5"};
  options.force = true;
  const RunSummary changed = run(options);
  REQUIRE_FALSE(changed.skipped);
  CHECK(changed.certificate->epsilons.front().epsilon_lower <= 5.0);
}

TEST_CASE("run: bad input is refused before the run directory exists", "[run]") {
  const fs::path dir = fresh_directory("bad-input");
  RunOptions options = options_in(dir);
  options.overrides = {"pair.sensitivity=1.5"};  // not a whole number of grid steps
  CHECK_THROWS_AS(run(options), InputError);
  CHECK_FALSE(fs::exists(dir / "run"));
  options.overrides = {"loss.epsilon=-1"};
  CHECK_THROWS_AS(run(options), InputError);
  CHECK_FALSE(fs::exists(dir / "run"));
  options.overrides = {};
  options.resume = true;  // the convex program keeps no checkpoint
  CHECK_THROWS_WITH(run(options), Catch::Contains("--resume does not apply to optimiser.kind = convex"));
  CHECK_FALSE(fs::exists(dir / "run"));
}

TEST_CASE("run: the least epsilon of the LP optimum meets delta and the budget under its certificate, and is least",
          "[run][lp]") {
  // One release, differences in [-1, 1] (4 cells of 0.25), Pr[|e| > 3] <= 0.2 at delta 1e-4, noise on [-15, 15].
  LpOptimumRunOptions o;
  o.grid_step = 0.25;
  o.range = 15.0;
  o.sensitivity = 1.0;
  o.minimise = "epsilon";
  o.delta = 1e-4;
  o.cost = LpCost::kTailProbability;
  o.tail_threshold = 3.0;
  o.cost_budget = 0.2;
  const LpOptimumRun run = run_lp_optimum(o);
  CHECK(run.certificate.deltas.front().epsilon == run.epsilon);
  CHECK(run.certificate.deltas.front().delta_upper <= 1e-4);
  CHECK(run.solution.cost <= 0.2);
  // Least: slightly below, no table meets delta within the budget (the LP's least cost there exceeds it).
  LpOptimumOptions below;
  below.grid = run.table.grid();
  below.shift_cells = 4;
  below.epsilon = run.epsilon * (1.0 - 1e-3);
  below.objective = LpObjective::kLeastCost;
  below.delta = 1e-4;
  below.cost = LpCost::kTailProbability;
  below.tail_threshold = 3.0;
  const LpOptimum cheaper = solve_lp_optimum(below);
  CHECK((!cheaper.feasible || cheaper.cost > 0.2));
}

TEST_CASE(
    "run: without the learners linked, Adam and the geometric-tail families are refused by name, and nothing is "
    "written",
    "[run]") {
  // This suite links the run layer alone (no LibTorch): the convex program above runs, the learners are not there.
  const fs::path dir = fresh_directory("no-learners");
  std::ofstream(dir / "adam.yaml") << "grid: {range: 2, step: 1}\nmodel: {sigmoids: 2}\noptimiser: {epochs: 1}\n";
  std::ofstream(dir / "family.yaml")
      << "grid: {range: 20, step: 1}\nmodel: {kind: geometric-tail}\noptimiser: {kind: pgd}\n";
  RunOptions options;
  options.directory = dir / "run";
  options.config_path = (dir / "adam.yaml").string();
  CHECK_THROWS_WITH(run(options),
                    Catch::Contains("training a neural model with Adam needs the learners: link noiselearn::learners"));
  CHECK_FALSE(fs::exists(dir / "run"));
  options.config_path = (dir / "family.yaml").string();
  CHECK_THROWS_WITH(run(options), Catch::Contains("training a geometric-tail family needs the learners"));
  CHECK_FALSE(fs::exists(dir / "run"));
}
