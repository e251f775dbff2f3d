// Sweep files: ranges, the product's order and names, and the training-config parser applied to every point.
#include <catch2/catch.hpp>

#include <cmath>

#include "io/csv_row.hpp"
#include "io/sweep_file.hpp"
#include "scratch_directory.hpp"

using namespace noiselearn;
using noiselearn::testing::input_error_of;
using noiselearn::testing::put_file;
using noiselearn::testing::ScratchDirectory;

TEST_CASE("a range has its ends exactly and even steps, linear or in log", "[io][sweep]") {
  const auto linear = range_values(0.1, 1.0, 4, false);
  REQUIRE(linear.size() == 4);
  CHECK(linear.front() == 0.1);
  CHECK(linear.back() == 1.0);
  CHECK(linear[1] - linear[0] == Approx(0.3).epsilon(1e-14));
  CHECK(linear[2] - linear[1] == Approx(0.3).epsilon(1e-14));
  const auto log = range_values(1e-3, 1.0, 4, true);
  CHECK(log.front() == 1e-3);
  CHECK(log.back() == 1.0);
  for (size_t i = 1; i < log.size(); ++i)
    CHECK(log[i] / log[i - 1] == Approx(10.0).epsilon(1e-13));  // ratio (1/1e-3)^(1/3)
}

TEST_CASE("a log range of a whole-number key gives the powers of two exactly, in product order", "[io][sweep]") {
  ScratchDirectory dir;
  put_file(dir / "base.yaml", "grid:\n  range: 4\n  step: 0.1\nmodel:\n  sigmoids: 20\n");
  // 2^k computed as exp(k ln 2) is 1.9999999999999998 for k = 1: the key takes the nearest whole number.
  put_file(dir / "sweep.yaml",
           "base: base.yaml\nvary:\n  loss.kind: [soft-pld, renyi]\n  loss.compositions: {from: 1, to: 128, steps: 8, "
           "scale: log}\n");
  const SweepPlan plan = expand_sweep(dir / "sweep.yaml");
  REQUIRE(plan.varied_keys == std::vector<std::string>{"loss.kind", "loss.compositions"});
  REQUIRE(plan.points.size() == 16);
  for (size_t i = 0; i < 16; ++i) {
    const auto& point = plan.points[i];
    const int64_t n = int64_t{1} << (i % 8);  // the last key fastest
    CHECK(point.config.loss_compositions == n);
    CHECK(point.config.loss_kind == (i < 8 ? "soft-pld" : "renyi"));
    CHECK(point.config.sigmoid_stack.sigmoids == 20);  // the base, kept
    CHECK(point.name == "kind=" + point.config.loss_kind + ",compositions=" + std::to_string(n));
    CHECK(point.values == std::vector<std::string>{point.config.loss_kind, std::to_string(n)});
  }
}

TEST_CASE("an inline base, set keys and a zip group, a path relative to the sweep file", "[io][sweep]") {
  ScratchDirectory dir;
  put_file(dir / "sweep.yaml", R"(base:
  grid: {range: 4, step: 0.1}
  model: {sigmoids: 20}
set:
  optimiser.epochs: 7
  model.init_table: tables/start.csv
zip:
  - loss.epsilon: [0.5, 1, 2]
    loss.compositions: [1, 1, 4]
)");
  const SweepPlan plan = expand_sweep(dir / "sweep.yaml");
  REQUIRE(plan.points.size() == 3);
  CHECK(plan.points[2].config.loss_epsilon == 2.0);
  CHECK(plan.points[2].config.loss_compositions == 4);
  CHECK(plan.points[1].name == "epsilon=1,compositions=1");
  for (const auto& p : plan.points) {
    CHECK(p.config.adam.epochs == 7);
    CHECK(p.config.grid_range == 4.0);
    CHECK(p.config.model_init_table == (dir.path() / "tables" / "start.csv").lexically_normal().string());
  }
}

TEST_CASE("a sweep problem names the file, the line and the key", "[io][sweep]") {
  ScratchDirectory dir;
  put_file(dir / "sweep.yaml", "vary:\n  loss.epsilon: [0.5]\n  loss.compositions: [1, 0]\n");
  const std::string message = input_error_of([&] { expand_sweep(dir / "sweep.yaml"); });
  CHECK_THAT(message,
             Catch::StartsWith((dir / "sweep.yaml").string() + ":3: vary: loss.compositions must be a whole number"));
  put_file(dir / "sweep.yaml", "zip:\n  - {loss.epsilon: [0.5, 0.5], loss.compositions: [1, 1]}\n");
  CHECK_THAT(input_error_of([&] { expand_sweep(dir / "sweep.yaml"); }),
             Catch::Contains("zip: the group (loss.epsilon, loss.compositions) gives the values (0.5, 1) twice"));
}

TEST_CASE("every problem of a sweep file is one InputError naming the key and what is wrong", "[io][sweep]") {
  struct Case {
    const char* sweep;
    const char* culprit;
  };
  const std::vector<Case> cases = {
      {"base: base.yaml\nvary:\n  epsilon: [0.1, 0.2]\n", "unknown key 'epsilon'"},
      {"base: base.yaml\nvary:\n  loss.epsilon: {from: 0.1, to: 1, steps: 1}\n", "loss.epsilon range: steps must be"},
      {"base: base.yaml\nvary:\n  loss.epsilon: {from: 0.1, steps: 3}\n",
       "loss.epsilon range needs from, to and steps"},
      {"base: base.yaml\nvary:\n  loss.epsilon: {from: 0.1, to: 1, steps: 3, scale: cubic}\n",
       "scale must be linear or log"},
      {"base: base.yaml\nvary:\n  loss.compositions: [2, 2]\n", "loss.compositions lists the value '2' twice"},
      {"base: base.yaml\nvary:\n  loss.epsilon: [0.1, -1]\n", "loss.epsilon must be finite and >= 0"},
      {"base: base.yaml\nvary:\n  model.kind: {from: 1, to: 2, steps: 2}\n", "model.kind is not a number"},
      {"base: base.yaml\nvary:\n  loss.epsilon: 0.5\n", "loss.epsilon must be a list"},
      {"base: base.yaml\nset:\n  optimiser.epoch: 3\n", "unknown key 'optimiser.epoch'"},
      {"base: base.yaml\nset:\n  loss.epsilon: 0.5\nvary:\n  loss.epsilon: [0.1]\n",
       "key 'loss.epsilon' is given twice"},
      {"base: base.yaml\nzip:\n  - {loss.compositions: [1, 2], loss.epsilon: [0.1]}\n",
       "zip: loss.epsilon has 1 values but loss.compositions has 2"},
      {"base: base.yaml\nvary:\n  loss.compositions: []\n", "loss.compositions has an empty list"},
      {"base: base.yaml\nvary:\n  loss.epsilon: {from: 1, to: 1, steps: 3}\n", "from and to are both 1"},
      {"base: base.yaml\nvary:\n  loss.epsilon: {from: 0.1, to: 1, steps: 3, by: 2}\n",
       "unknown entry 'by' (valid: from, to, steps, scale)"},
      {"base: base.yaml\nvary:\n  loss.epsilon: [x]\n", "loss.epsilon must be a number (got 'x')"},
      {"base: base.yaml\nzip: {loss.epsilon: [1]}\n", "zip must be a list of groups"},
      {"base: [1, 2]\n", "base must be a config file (a path) or a config"},
      {"- 1\n", "a sweep file is a map with base, set, vary and zip"},
      {"base: base.yaml\n[vary]: 1\n", "a key must be a plain name, not a list"},
      {"base: base.yaml\nvary:\n  {loss.epsilon: 1}: [0.1, 0.2]\n", "a key must be a plain name, not a map"},
      {"base: base.yaml\nvary:\n  loss.epsilon: {[from]: 0.1, to: 1, steps: 3}\n",
       "a key must be a plain name, not a list"},
  };
  ScratchDirectory dir;
  put_file(dir / "base.yaml", "grid:\n  range: 4\n  step: 0.1\n");
  for (const auto& c : cases) {
    INFO(c.sweep);
    put_file(dir / "sweep.yaml", c.sweep);
    const std::string message = input_error_of([&] { expand_sweep(dir / "sweep.yaml"); });
    CHECK_THAT(message, Catch::Contains(c.culprit));
    CHECK_THAT(message, Catch::StartsWith((dir / "sweep.yaml").string()));
    CHECK(message.find('\n') == std::string::npos);
  }
}

TEST_CASE("CSV cells with commas and quotes read back as written", "[io][sweep]") {
  const std::vector<std::string> cells{"kind=a,b", "say \"hi\"", "", "plain"};
  const std::string row = csv_row(cells);
  CHECK(row == "\"kind=a,b\",\"say \"\"hi\"\"\",,plain\n");
  CHECK(split_csv_row(row.substr(0, row.size() - 1)) == cells);
}
