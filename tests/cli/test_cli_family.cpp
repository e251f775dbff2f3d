// noiselearn train with model.kind = geometric-tail (Gilani et al.): the run directory, the certificate of a table
// with geometric tails, and the references of the same cost checked against their closed forms (the discrete
// Laplace's binomial delta, the Gaussian mechanism's analytic delta) through what the run writes.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/run_noiselearn.hpp"

namespace fs = std::filesystem;
using namespace noiselearn::testing;

namespace {

const char* kDiscreteConfig = R"(model:
  kind: geometric-tail
  domain: discrete
  window: 40
  tail_ratio: 0.9
  bin_width: 1
  cost: square
  cost_budget: 9
pair:
  sensitivity: 1
loss:
  kind: renyi
  delta: 1.0e-3
  compositions: 4
optimiser:
  kind: pgd
  iterations: 60
certification:
  deltas: [1.0e-2]
output:
  log_every: 0
  plots: false
)";

const char* kContinuousConfig = R"(model:
  kind: geometric-tail
  domain: continuous
  window: 200
  tail_ratio: 0.99
  bin_width: 0.1
  cost_budget: 4
pair:
  sensitivity: 1
loss:
  kind: renyi
  delta: 1.0e-4
  compositions: 3
optimiser:
  kind: pgd
  iterations: 40
output:
  log_every: 0
  plots: false
)";

// comparison.csv rows by noise name: {epsilon_lower, epsilon_upper}.
std::map<std::string, std::pair<double, double>> comparison_of(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::map<std::string, std::pair<double, double>> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
    REQUIRE(cells.size() >= 5);
    rows[cells[0]] = {std::stod(cells[cells.size() - 2]), std::stod(cells.back())};
  }
  return rows;
}

// The discrete Laplace P(i) ~ r^|i| with shift 1: the loss is +-a, a = ln(1/r), +a with probability 1/(1+r); after
// n releases delta(eps) = E[(1 - e^(eps - L))_+], L = a (2K - n), K ~ Binomial(n, 1/(1+r)).
double discrete_laplace_delta(double r, int n, double eps) {
  const double a = std::log(1.0 / r), pi = 1.0 / (1.0 + r);
  double delta = 0.0;
  for (int k = 0; k <= n; ++k) {
    const double loss = a * (2.0 * k - n);
    if (loss <= eps) continue;
    const double weight = std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) +
                                   k * std::log(pi) + (n - k) * std::log1p(-pi));
    delta += weight * -std::expm1(eps - loss);
  }
  return delta;
}

// Balle and Wang (2018): n releases of the Gaussian mechanism, m = s sqrt(n) / sigma.
double gaussian_delta(double sigma, int n, double eps) {
  const double m = std::sqrt(static_cast<double>(n)) / sigma;
  auto phi = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  return phi(-eps / m + m / 2.0) - std::exp(eps) * phi(-eps / m - m / 2.0);
}

}  // namespace

TEST_CASE(
    "train geometric-tail (discrete): run directory with tails, gamma decreased, certificate re-evaluated "
    "alike, and the discrete Laplace of the same variance certified around its binomial value",
    "[cli][family]") {
  const fs::path dir = scratch("family-discrete");
  std::ofstream(dir / "family.yaml") << kDiscreteConfig;
  const Run run = run_noiselearn("train family.yaml --out run", dir);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  for (const char* file :
       {"config.yaml", "noise.csv", "noise.json", "certificate.csv", "history.csv", "comparison.csv", "summary.txt"})
    CHECK(fs::exists(dir / "run" / file));
  const auto metadata = read_json(dir / "run" / "noise.json");
  CHECK(metadata["tails"]["ratio"] == 0.9);
  CHECK(metadata["grid"]["size"] == 81);
  CHECK(metadata["model"]["cost"]["achieved"].get<double>() == Approx(9.0).epsilon(1e-12));
  CHECK(metadata["loss"]["gamma"].get<double>() < metadata["loss"]["gamma_start"].get<double>());
  CHECK(metadata["training"]["max_constraint_residual"].get<double>() <= 1e-12);
  const double upper = metadata["certificate"]["epsilon_at_delta"][0]["epsilon_upper"];
  const double lower = metadata["certificate"]["epsilon_at_delta"][0]["epsilon_lower"];
  CHECK(lower <= upper);
  CHECK(upper - lower <= 1e-3);
  // The table as written (window + tails from noise.json) certifies to the same bracket through `evaluate`.
  const Run evaluated = run_noiselearn("evaluate run/noise.csv --sensitivity 1 --compositions 4 --delta 1e-3", dir);
  INFO(evaluated.err);
  REQUIRE(evaluated.exit_code == 0);
  std::ostringstream bracket;
  bracket << "epsilon in [" << std::fixed;
  bracket.precision(6);
  bracket << std::floor(lower * 1e6) / 1e6;
  CHECK_THAT(evaluated.out, Catch::Contains(bracket.str()));
  // The discrete Laplace of variance 9: ratio r with 2r / (1-r)^2 = 9; its certified epsilon brackets the exact one.
  const auto rows = comparison_of(dir / "run" / "comparison.csv");
  REQUIRE(rows.count("discrete-laplace") == 1);
  REQUIRE(rows.count("learned") == 1);
  const double r = 1.0 + 1.0 / 9.0 - std::sqrt(1.0 / 81.0 + 2.0 / 9.0);
  const auto [laplace_lower, laplace_upper] = rows.at("discrete-laplace");
  CHECK(discrete_laplace_delta(r, 4, laplace_upper) <= 1e-3 * (1.0 + 1e-9));
  CHECK(discrete_laplace_delta(r, 4, laplace_lower) >= 1e-3 * (1.0 - 1e-9));
}

TEST_CASE(
    "train geometric-tail (continuous): the Gaussian mechanism of the same variance is certified around its "
    "analytic value, and the certificate covers real shifts (stated)",
    "[cli][family]") {
  const fs::path dir = scratch("family-continuous");
  std::ofstream(dir / "family.yaml") << kContinuousConfig;
  const Run run = run_noiselearn("train family.yaml --out run", dir);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto rows = comparison_of(dir / "run" / "comparison.csv");
  REQUIRE(rows.count("gaussian") == 1);
  const auto [gaussian_lower, gaussian_upper] = rows.at("gaussian");
  CHECK(gaussian_delta(2.0, 3, gaussian_upper) <= 1e-4 * (1.0 + 1e-6));
  CHECK(gaussian_delta(2.0, 3, gaussian_lower) >= 1e-4 * (1.0 - 1e-6));
  CHECK(rows.count("laplace") == 1);
  CHECK(rows.count("truncated-gaussian") == 1);
  CHECK_THAT(run.out, Catch::Contains("whole-bin shifts cover every real difference in [-s, s]"));
  const auto metadata = read_json(dir / "run" / "noise.json");
  CHECK(metadata["model"]["cost"]["achieved"].get<double>() == Approx(4.0).epsilon(1e-12));
}

TEST_CASE(
    "train geometric-tail with the newton direction: lower gamma and certified epsilon than Alg. 3 in the same "
    "iterations, alpha minimised, recorded in noise.json",
    "[cli][family]") {
  const fs::path dir = scratch("family-newton");
  std::ofstream(dir / "family.yaml") << kContinuousConfig;
  const Run steepest = run_noiselearn("train family.yaml --out steepest", dir);
  const Run newton = run_noiselearn(
      "train family.yaml --out newton --set optimiser.direction=newton --set optimiser.alpha_update=minimise "
      "--set optimiser.alpha_update_every=1",
      dir);
  INFO(steepest.err << newton.err);
  REQUIRE(steepest.exit_code == 0);
  REQUIRE(newton.exit_code == 0);
  const auto a = read_json(dir / "steepest" / "noise.json"), b = read_json(dir / "newton" / "noise.json");
  CHECK(b["training"]["direction"] == "newton");
  CHECK(b["training"]["alpha_update"] == "minimise");
  CHECK(b["training"]["max_constraint_residual"].get<double>() <= 1e-12);
  CHECK(b["loss"]["gamma"].get<double>() < a["loss"]["gamma"].get<double>());
  CHECK(b["certificate"]["epsilon_at_delta"][0]["epsilon_upper"].get<double>() <
        a["certificate"]["epsilon_at_delta"][0]["epsilon_upper"].get<double>());
}

TEST_CASE(
    "train geometric-tail --resume: 40 + 40 iterations from the checkpoint give the table of 80 in one go, bit "
    "for bit; a changed key or a damaged checkpoint is refused naming it",
    "[cli][family]") {
  const fs::path dir = scratch("family-resume");
  std::ofstream(dir / "family.yaml") << kContinuousConfig;
  const std::string steepest =
      " --set optimiser.direction=steepest --set optimiser.alpha_update_every=10 --set output.checkpoint_every=15";
  const Run whole = run_noiselearn("train family.yaml --out whole --set optimiser.iterations=80" + steepest, dir);
  const Run first = run_noiselearn("train family.yaml --out parts --set optimiser.iterations=40" + steepest, dir);
  INFO(whole.err << first.err);
  REQUIRE(whole.exit_code == 0);
  REQUIRE(first.exit_code == 0);
  REQUIRE(fs::exists(dir / "parts" / "checkpoint.pt"));
  const Run changed = run_noiselearn(
      "train family.yaml --out parts --resume --set optimiser.iterations=80 --set model.cost_budget=5" + steepest, dir);
  CHECK(changed.exit_code == 2);
  CHECK_THAT(error_line(changed), Catch::Contains("model.cost_budget"));
  const Run second =
      run_noiselearn("train family.yaml --out parts --resume --set optimiser.iterations=80" + steepest, dir);
  INFO(second.err);
  REQUIRE(second.exit_code == 0);
  const auto slurp = [](const fs::path& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  CHECK(slurp(dir / "whole" / "noise.csv") == slurp(dir / "parts" / "noise.csv"));
  const auto a = read_json(dir / "whole" / "noise.json"), b = read_json(dir / "parts" / "noise.json");
  CHECK(b["training"]["iterations"] == 80);
  CHECK(b["loss"]["gamma_start"] == a["loss"]["gamma_start"]);
  CHECK(b["loss"]["alpha"] == a["loss"]["alpha"]);
  // history.csv: the same records (iteration, alpha, worst shift, gamma, objective, step) as the single run's.
  const auto records = [](const fs::path& path) {
    std::ifstream in(path);
    std::vector<std::string> out;
    std::string line;
    while (std::getline(in, line)) {
      size_t cut = 0;
      for (int commas = 0; commas < 6 && cut != std::string::npos; ++commas) cut = line.find(',', cut + 1);
      out.push_back(line.substr(0, cut));
    }
    return out;
  };
  const auto whole_history = records(dir / "whole" / "history.csv"),
             parts_history = records(dir / "parts" / "history.csv");
  CHECK(whole_history.size() >= 9);
  CHECK(whole_history == parts_history);
  // A damaged checkpoint: its checksum no longer matches.
  {
    std::fstream f(dir / "parts" / "checkpoint.pt", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(80);
    f.put('7');
  }
  const Run damaged =
      run_noiselearn("train family.yaml --out parts --resume --set optimiser.iterations=90" + steepest, dir);
  CHECK(damaged.exit_code == 2);
  CHECK_THAT(error_line(damaged), Catch::Contains("checkpoint.pt"));
}

TEST_CASE(
    "train geometric-tail (soft PLD after a Renyi warm start) resumes in the main stage and keeps the warm "
    "start's record",
    "[cli][family]") {
  const fs::path dir = scratch("family-resume-soft");
  std::ofstream(dir / "family.yaml") << kContinuousConfig;
  const std::string soft =
      " --set loss.kind=soft-pld --set optimiser.warm_start=renyi --set optimiser.warm_start_iterations=10 "
      "--set optimiser.direction=lbfgs --set output.checkpoint_every=2";
  const Run first = run_noiselearn("train family.yaml --out run --set optimiser.iterations=3" + soft, dir);
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  const auto before = read_json(dir / "run" / "noise.json");
  const Run second = run_noiselearn("train family.yaml --out run --resume --set optimiser.iterations=6" + soft, dir);
  INFO(second.err);
  REQUIRE(second.exit_code == 0);
  const auto after = read_json(dir / "run" / "noise.json");
  CHECK(after["loss"]["warm_start"]["iterations"] == before["loss"]["warm_start"]["iterations"]);
  CHECK(after["loss"]["warm_start"]["gamma"] == before["loss"]["warm_start"]["gamma"]);
  CHECK(after["training"]["iterations"].get<int64_t>() ==
        before["loss"]["warm_start"]["iterations"].get<int64_t>() + 6);
  CHECK(after["loss"]["objective"].get<double>() <= before["loss"]["objective"].get<double>());
}

TEST_CASE("train geometric-tail refuses what it cannot do with one line naming the key, exit 2, and no run directory",
          "[cli][family]") {
  const fs::path dir = scratch("family-bad");
  std::ofstream(dir / "family.yaml") << kContinuousConfig;
  const std::pair<const char*, const char*> cases[] = {
      {"--set optimiser.kind=adam", "optimiser.kind"},
      {"--set loss.kind=moments-accountant", "loss.kind"},
      {"--set pair.sensitivity=0.125", "pair.sensitivity 0.125"},
      {"--set model.domain=discrete", "model.bin_width"},
      {"--set model.tail_ratio=1", "model.tail_ratio"},
      {"--set model.cost_budget=0.0001", "model.cost_budget"},
      {"--set model.windw=10", "model.window"},
      {"--set model.window=1000000 --set model.bin_width=0.01", "model.window 1000000 with 100 shifts"},
      {"--set optimiser.alpha_update=exact", "optimiser.alpha_update"},
      {"--set optimiser.direction=newtn", "optimiser.direction"},
      {"--set loss.kind=soft-pld --set optimiser.direction=newton", "optimiser.direction newton"},
  };
  for (const auto& [overrides, culprit] : cases) {
    const Run run = run_noiselearn(std::string("train family.yaml --out run ") + overrides, dir);
    INFO(overrides << ": " << run.err);
    CHECK(run.exit_code == 2);
    CHECK_THAT(error_line(run), Catch::Contains(culprit));
    CHECK(!fs::exists(dir / "run"));
  }
}

TEST_CASE("train with loss.kind = renyi and Adam on a grid model runs and is certified", "[cli][family]") {
  const fs::path dir = scratch("renyi-adam");
  std::ofstream(dir / "tiny.yaml") << R"(grid:
  range: 4
  step: 0.1
model:
  kind: free-logits
  init: truncated-gaussian
  init_sigma: 1.5
loss:
  kind: renyi
  epsilon: 1.0
  compositions: 2
optimiser:
  epochs: 20
  learning_rate: 0.01
output:
  log_every: 0
  plots: false
)";
  const Run run = run_noiselearn("train tiny.yaml --out run", dir);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::Contains("with renyi"));
}
