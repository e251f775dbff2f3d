// The noiselearn executable as a user meets it: exit codes, one-line errors naming the culprit, outputs.
#include <catch2/catch.hpp>

#include "cli/run_noiselearn.hpp"

#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

using namespace noiselearn::testing;

namespace {}  // namespace

TEST_CASE("help exits 0 and lists the commands", "[cli]") {
  const fs::path dir = scratch("help");
  const Run top = run_noiselearn("--help", dir);
  CHECK(top.exit_code == 0);
  CHECK_THAT(top.out, Catch::Contains("baseline") && Catch::Contains("evaluate"));
  const Run evaluate = run_noiselearn("evaluate --help", dir);
  CHECK(evaluate.exit_code == 0);
  CHECK_THAT(evaluate.out, Catch::Contains("--sensitivity") && Catch::Contains("--loss-step"));
}

TEST_CASE("version: --version prints the project's version and the noise table format, exit 0, from both executables",
          "[cli]") {
  const fs::path dir = scratch("version");
  const Run version = run_noiselearn("--version", dir);
  CHECK(version.exit_code == 0);
  CHECK(version.out == "noiselearn 0.1.0 (noise table format 1)\n");
  // noise.json records the same version.
  REQUIRE(run_noiselearn("baseline laplace --scale 1 --grid-step 1 --range 5 --out t.csv", dir).exit_code == 0);
  CHECK(read_json(dir / "t.json")["noiselearn_version"] == "0.1.0");
  const std::string training = (fs::path(NOISELEARN_BINARY).parent_path() / "noiselearn-train").string();
  CHECK(shell("'" + training + "' --version > '" + (dir / "train.txt").string() + "'") == 0);
  CHECK(read_text(dir / "train.txt") == version.out);
}

TEST_CASE("baseline then evaluate reproduces Gilani et al.'s Gaussian epsilon, as text and JSON", "[cli]") {
  const fs::path dir = scratch("gaussian");
  const Run baseline = run_noiselearn("baseline gaussian --sigma 5 --grid-step 0.01 --range 200 --out g.csv", dir);
  REQUIRE(baseline.exit_code == 0);
  CHECK(fs::exists(dir / "g.csv"));
  CHECK(fs::exists(dir / "g.json"));
  const Run json =
      run_noiselearn("evaluate g.csv --sensitivity 1 -n 10 --delta 1e-6 --epsilon 1 --json --curve c.csv", dir);
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
  REQUIRE(
      run_noiselearn(
          "baseline laplace --scale 2 --grid-step 0.05 --range 60 --out t.csv --sensitivity 1 -n 4 --delta 1e-5", dir)
          .exit_code == 0);
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
  REQUIRE(run_noiselearn(
              "baseline truncated-gaussian --target-utility l2=2 --truncation 5 --grid-step 0.01 --range 6 --out u.csv",
              dir)
              .exit_code == 0);
  std::ifstream u(dir / "u.json");
  CHECK(nlohmann::json::parse(u)["utility"]["l2"].get<double>() == Approx(2.0).epsilon(1e-8));
  const Run delta = run_noiselearn(
      "baseline gaussian --target-delta 1e-6 --target-epsilon 1 --sensitivity 1 -n 4 --grid-step 0.02 --range 100 "
      "--out d.csv",
      dir);
  REQUIRE(delta.exit_code == 0);
  std::ifstream d(dir / "d.json");
  const auto metadata = nlohmann::json::parse(d);
  CHECK(metadata["certificate"]["delta_at_epsilon"][0]["delta_upper"].get<double>() <= 1e-6);
}

TEST_CASE("evaluate --with certifies a heterogeneous composition: Gaussians compose to the combined mu", "[cli]") {
  // 10 releases with sigma 5 and 30 with sigma 8 (sensitivity 1): mu^2 = 10/25 + 30/64, and the analytic
  // delta(1) of the Gaussian mechanism with that mu must lie in the printed bracket (up to the grid's rounding
  // loss, far below the 1e-6 relative slack used here).
  const fs::path dir = scratch("heterogeneous");
  REQUIRE(run_noiselearn("baseline gaussian --sigma 5 --grid-step 0.01 --range 200 --out g5.csv", dir).exit_code == 0);
  REQUIRE(run_noiselearn("baseline gaussian --sigma 8 --grid-step 0.01 --range 200 --out g8.csv", dir).exit_code == 0);
  const Run run = run_noiselearn("evaluate g5.csv --sensitivity 1 -n 10 --with g8.csv:30 --epsilon 1 --json", dir);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto certificate = nlohmann::json::parse(run.out);
  CHECK(certificate["compositions"] == 40);
  const double mu = std::sqrt(10.0 / 25.0 + 30.0 / 64.0);
  auto Phi = [](double x) { return 0.5 * std::erfc(-x / M_SQRT2); };
  const double analytic = Phi(-1.0 / mu + mu / 2) - std::exp(1.0) * Phi(-1.0 / mu - mu / 2);
  const auto& at = certificate["delta_at_epsilon"][0];
  CHECK(at["delta_lower"].get<double>() <= analytic * (1 + 1e-6));
  CHECK(at["delta_upper"].get<double>() >= analytic * (1 - 1e-6));
  CHECK(at["delta_upper"].get<double>() - at["delta_lower"].get<double>() < 1e-6);
  // Order does not matter: the same parts the other way round give the same bounds.
  const Run swapped = run_noiselearn("evaluate g8.csv --sensitivity 1 -n 30 --with g5.csv:10 --epsilon 1 --json", dir);
  REQUIRE(swapped.exit_code == 0);
  const auto other = nlohmann::json::parse(swapped.out)["delta_at_epsilon"][0];
  CHECK(other["delta_upper"].get<double>() == Approx(at["delta_upper"].get<double>()).epsilon(1e-9));
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
           Case{"baseline gaussian --sigma 1 --grid-step 0.01 --range 10 --out g.csv",
                "refusing to overwrite existing file g.csv"},
           Case{"baseline gausian --sigma 1 --grid-step 0.01 --range 10 --out h.csv", "unknown baseline 'gausian'"},
           Case{"baseline gaussian --grid-step 0.01 --range 10 --out h.csv", "needs --sigma"},
           Case{"baseline gaussian --sigma -1 --grid-step 0.01 --range 10 --out h.csv", "sigma"},
           Case{"baseline gaussian --sigma 1 --grid-step 0.3 --range 1 --out h.csv",
                "range 1 is not a whole number of grid steps"},
           Case{"baseline gaussian --target-utility l3=2 --grid-step 0.1 --range 10 --out h.csv", "l3"},
           Case{"baseline truncated-gaussian --target-utility l2=50 --grid-step 0.1 --range 10 --out h.csv",
                "out of reach"},
           Case{"--threads 0 evaluate g.csv --sensitivity 1", "--threads"},
           Case{"evaluate g.csv --sensitivity 1 --with g.csv", "--with g.csv: expected TABLE:N"},
           Case{"evaluate g.csv --sensitivity 1 --with g.csv:0", "--with g.csv:0: the number of releases '0'"},
           Case{"evaluate g.csv --sensitivity 1 --with g.csv:2x", "'2x'"},
           Case{"evaluate g.csv --sensitivity 1 --with missing.csv:3", "missing.csv"},
           Case{"evaluate g.csv --sensitivity 1 --with g.csv:3 --compare", "--compare"},
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

TEST_CASE(
    "baseline one-sided-optimum, discrete-tbl and tbl: tables on [0, R], Thm 1's moments, certified within "
    "their design, and refusals naming the option",
    "[cli][one-sided]") {
  const fs::path dir = scratch("one-sided-baselines");
  const Run optimum = run_noiselearn(
      "baseline one-sided-optimum --epsilon 1 --optimum-delta 1e-4 --grid-step 1 --range 20 --out opt.csv -n 1 --delta "
      "2e-4",
      dir);
  INFO(optimum.err);
  REQUIRE(optimum.exit_code == 0);
  std::ifstream in(dir / "opt.json");
  const auto metadata = nlohmann::json::parse(in);
  CHECK(metadata["support"] == "one-sided");
  CHECK(metadata["grid"]["size"] == 21);
  CHECK(metadata["utility"]["second_moment"].get<double>() == Approx(75.38501735).epsilon(1e-9));
  CHECK(metadata["utility"]["l1"].get<double>() == Approx(8.561908013).epsilon(1e-9));
  const auto& e = metadata["certificate"]["epsilon_at_delta"][0];
  CHECK(e["epsilon_lower"].get<double>() <= e["epsilon_upper"].get<double>());
  CHECK(e["epsilon_upper"].get<double>() <= 1.0 + 1e-9);  // built for (1, 1e-4), so (1, 2e-4) holds a fortiori
  // The discrete TBL of scale 1 on [0, 18]: (1, 1e-4)-DP (its distinguishing mass p_0 is 5.7e-5).
  const Run tbl =
      run_noiselearn("baseline discrete-tbl --scale 1 --grid-step 1 --range 18 --out d.csv -n 1 --delta 1e-4", dir);
  INFO(tbl.err);
  REQUIRE(tbl.exit_code == 0);
  std::ifstream din(dir / "d.json");
  const auto d = nlohmann::json::parse(din);
  CHECK(d["utility"]["second_moment"].get<double>() == Approx(82.834).margin(5e-4));
  CHECK(d["certificate"]["epsilon_at_delta"][0]["epsilon_upper"].get<double>() <= 1.0 + 1e-9);
  const std::pair<const char*, const char*> refusals[] = {
      {"baseline one-sided-optimum --epsilon 1 --optimum-delta 1e-4 --grid-step 1 --range 10 --out x.csv",
       "--range 10"},
      {"baseline one-sided-optimum --epsilon 1 --grid-step 1 --range 20 --out x.csv", "--optimum-delta"},
      {"baseline tbl --scale 1 --shift 30 --grid-step 1 --range 20 --out x.csv", "shift"},
      {"baseline tbl --scale 1 --epsilon 2 --grid-step 1 --range 20 --out x.csv", "--epsilon"},
      {"baseline discrete-tbl --scale 1 --grid-step 0.3 --range 20 --out x.csv", "20"},
  };
  for (const auto& [command, culprit] : refusals) {
    const Run run = run_noiselearn(command, dir);
    INFO(command << ": " << run.err);
    CHECK(run.exit_code == 2);
    CHECK_THAT(error_line(run), Catch::Contains(culprit));
    CHECK(!fs::exists(dir / "x.csv"));
  }
}

// ---- maxl and pac (Xiao et al. sections 5 and 6) ----

namespace {}  // namespace

TEST_CASE("maxl: Fig. 3 at v = 3.5 through the CLI, its run directory and --json", "[cli][maxl]") {
  const fs::path dir = scratch("maxl");
  write(dir / "fig3.yaml",
        "problem:\n  states: 7\n  first_state: 1\n  cost: j\nleakage:\n  budget: 3.5\noutput:\n  plots: false\n");
  const Run run = run_noiselearn("maxl fig3.yaml --out run", dir);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::Contains("cost 4.571428571"));
  for (const char* file : {"config.yaml", "mechanism.csv", "states.csv", "cost_curve.csv", "summary.json"}) {
    INFO(file);
    CHECK(fs::exists(dir / "run" / file));
  }
  const auto summary = read_json(dir / "run" / "summary.json");
  CHECK(summary["cost"].get<double>() == Approx(32.0 / 7.0).epsilon(1e-14));
  CHECK(summary["leakage_nats"].get<double>() == Approx(std::log(3.5)).epsilon(1e-14));
  CHECK(summary["ceil_scheme"]["states"] == nlohmann::json::array({1, 3, 5, 7}));
  CHECK(summary["floor_scheme"]["states"] == nlohmann::json::array({2, 4, 7}));
  // A second run into the same directory is refused without --force, and --set reaches every key.
  const Run again = run_noiselearn("maxl fig3.yaml --out run", dir);
  CHECK(again.exit_code == 2);
  const Run json = run_noiselearn("maxl fig3.yaml --out run --force --json --set leakage.budget=3", dir);
  REQUIRE(json.exit_code == 0);
  CHECK(nlohmann::json::parse(json.out)["cost"].get<double>() == Approx(33.0 / 7.0).epsilon(1e-14));
  // The authors' default instance from a cost matrix file (0-indexed, j^2, prior (2, 1, 0, 1, 2, 0, 1) / 7).
  std::string matrix;
  for (int i = 0; i < 7; ++i) {
    for (int j = 0; j < 7; ++j) matrix += (j ? "," : "") + (j < i ? std::string("inf") : std::to_string(j * j));
    matrix += "\n";
  }
  write(dir / "cost.csv", matrix);
  write(dir / "default.yaml",
        "problem:\n  states: 7\n  first_state: 0\n  prior: [2, 1, 0, 1, 2, 0, 1]\n  prior_denominator: 7\n  cost: "
        "matrix\n"
        "  cost_matrix: cost.csv\nleakage:\n  budget: 3\noutput:\n  plots: false\n");
  const Run authors = run_noiselearn("maxl default.yaml --out default --json", dir);
  REQUIRE(authors.exit_code == 0);
  const auto out = nlohmann::json::parse(authors.out);
  CHECK(out["cost"].get<double>() == Approx(87.0 / 7.0).epsilon(1e-14));
  CHECK(out["ceil_scheme"]["states"] == nlohmann::json::array({1, 4, 6}));
}

TEST_CASE("maxl: bad input is one line naming the culprit, exit 2, and no run directory", "[cli][maxl][errors]") {
  const fs::path dir = scratch("maxl-errors");
  write(dir / "bad.csv", "1,2,3\n1,x,3\n1,2,3\n");
  write(dir / "decreasing.csv", "1,2,3\ninf,5,4\ninf,inf,3\n");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--set leakage.budget=0.5", "leakage.budget must be a finite number >= 1"},
      {"--set problem.stats=3", "unknown key 'problem.stats'"},
      {"--set problem.prior=[0.5,0.2,0.2]", "problem.prior: the prior sums to 0.9"},
      {"--set problem.prior=[1,1]", "problem.prior has 2 entries but there are 3 inputs"},
      {"--set problem.cost='3 - j'", "problem.cost '3 - j': cost row 1 is not non-decreasing"},
      {"--set problem.cost='j +'", "cost formula 'j +'"},
      {"--set problem.cost=matrix --set problem.cost_matrix=bad.csv", "bad.csv:2: field 2 'x' is not a number"},
      {"--set problem.cost=matrix --set problem.cost_matrix=decreasing.csv",
       "decreasing.csv: cost row 2 is not non-decreasing"},
      {"--set problem.start_states=[1,5,2]", "problem.start_states must be whole numbers from 1 to 3"},
  };
  for (const auto& [arguments, message] : cases) {
    INFO(arguments);
    const Run run = run_noiselearn("maxl --set problem.states=3 --out out " + arguments, dir);
    CHECK(run.exit_code == 2);
    CHECK_THAT(error_line(run), Catch::Contains(message));
    CHECK(std::count(run.err.begin(), run.err.end(), '\n') == 1);
    CHECK(!fs::exists(dir / "out"));
  }
}

TEST_CASE("pac: the issue's R = 10, B = 10 optimum, its noise table written and checksummed like every table",
          "[cli][pac]") {
  const fs::path dir = scratch("pac");
  write(dir / "pac.yaml",
        "pac:\n  range: 10\n  budget: 10\ntable:\n  step: 0.01\ncurve:\n  points: 5\noutput:\n  plots: false\n");
  const Run run = run_noiselearn("pac pac.yaml --out run --json", dir);
  REQUIRE(run.exit_code == 0);
  const auto summary = nlohmann::json::parse(run.out);
  CHECK(summary["mu"].get<double>() == Approx(0.8488).margin(5e-5));
  CHECK(summary["sigma"].get<double>() == Approx(2.8118).margin(5e-5));
  CHECK(summary["mutual_information_nats"].get<double>() == Approx(1.13421).margin(2e-5));
  CHECK(summary["mutual_information_bits"].get<double>() == Approx(1.13421 / std::log(2.0)).margin(3e-5));
  // The table reads back through evaluate (checksums and sums checked by the reader), one-sided on [0, 10].
  const Run evaluate = run_noiselearn("evaluate run/noise.csv --sensitivity 1 --compositions 1 --epsilon 1", dir);
  CHECK(evaluate.exit_code == 0);
  CHECK_THAT(evaluate.out, Catch::Contains("1001 points"));
  const auto meta = read_json(dir / "run" / "noise.json");
  CHECK(meta["support"] == "one-sided");
  CHECK(meta["pac_privacy"]["mu"].get<double>() == Approx(summary["mu"].get<double>()));
  CHECK(fs::exists(dir / "run" / "mi_curve.csv"));
  // A range that is not a whole number of steps, an unknown unit, a bad budget: exit 2 naming the key.
  for (const auto& [arguments, message] :
       std::vector<std::pair<std::string, std::string>>{{"--set table.step=0.3", "pac.range 10 with table.step 0.3"},
                                                        {"--set pac.units=bans", "pac.units = 'bans' is not valid"},
                                                        {"--set pac.budget=-1", "pac.budget must be positive"}}) {
    INFO(arguments);
    const Run bad = run_noiselearn("pac pac.yaml --out bad " + arguments, dir);
    CHECK(bad.exit_code == 2);
    CHECK_THAT(error_line(bad), Catch::Contains(message));
    CHECK(!fs::exists(dir / "bad"));
  }
}

TEST_CASE("configs/README.md's maxl and pac key tables are exactly what config-keys prints", "[cli][docs]") {
  std::ifstream readme_file(NOISELEARN_CONFIG_DOC);
  REQUIRE(readme_file);
  const std::string readme((std::istreambuf_iterator<char>(readme_file)), {});
  for (const char* command : {"maxl", "pac"}) {
    const Run run =
        run_noiselearn(std::string("config-keys ") + command, scratch(std::string("config-keys-") + command));
    REQUIRE(run.exit_code == 0);
    std::istringstream lines(run.out);
    for (std::string line; std::getline(lines, line);) {
      INFO("regenerate the table in configs/README.md with `noiselearn config-keys " << command << "`");
      CHECK_THAT(readme, Catch::Contains(line + "\n"));
    }
  }
}
