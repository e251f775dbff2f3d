// The YAML training configuration: defaults, overrides, and errors that name the key.
#include <catch2/catch.hpp>

#include <filesystem>

#include "core/errors.hpp"
#include "io/scratch_directory.hpp"
#include "io/training_config.hpp"

using namespace noiselearn;

TEST_CASE("an empty config gives the documented defaults", "[config]") {
  const TrainingConfig config = TrainingConfig::parse("", "empty.yaml");
  CHECK(config.model_kind == "sigmoid-stack");
  CHECK(config.sigmoid_stack.sigmoids == 10000);
  CHECK(config.loss_epsilon == 0.3);
  CHECK(config.grid().size == 60001);  // the paper's scale
  CHECK(config.grid().step == Approx(1.0 / 6000.0));
  CHECK(config.adam.learning_rate_decay == 0.99995);
  CHECK(config.certification_deltas == std::vector<double>{1e-3, 1e-6, 1e-9});
}

TEST_CASE("keys are read, typed and overridden with --set", "[config]") {
  const std::string yaml =
      "grid:\n  range: 5\n  step: 0.01\nloss:\n  kind: moments-accountant\n  compositions: 128\n"
      "certification:\n  deltas: [1e-5, 1e-7]\nschedule:\n  utility_weight_decay: false\n";
  const TrainingConfig config = TrainingConfig::parse(
      yaml, "c.yaml", {"loss.epsilon=0.5", "optimiser.epochs=20", "certification.epsilons=[0.3, 1]"});
  CHECK(config.loss_kind == "moments-accountant");
  CHECK(config.loss_compositions == 128);
  CHECK(config.loss_epsilon == 0.5);
  CHECK(config.adam.epochs == 20);
  CHECK(config.certification_deltas == std::vector<double>{1e-5, 1e-7});
  CHECK(config.certification_epsilons == std::vector<double>{0.3, 1.0});
  CHECK_FALSE(config.schedule_utility_weight_decay);
}

TEST_CASE("the resolved YAML reads back to the same configuration", "[config]") {
  const TrainingConfig config =
      TrainingConfig::parse("", "x", {"grid.step=0.1", "model.init_table=t.csv", "loss.buckets=500"});
  const TrainingConfig again = TrainingConfig::parse(config.to_yaml(), "resolved.yaml");
  for (const auto& key : TrainingConfig::schema()) CHECK(again.value_of(key) == config.value_of(key));
}

TEST_CASE("unknown, mistyped and out-of-range keys are errors naming the key", "[config]") {
  struct Case {
    std::string yaml;
    std::vector<std::string> overrides;
    std::string message;
  };
  for (const Case& c : {
           Case{"grid:\n  rnage: 5\n",
                {},
                "c.yaml:2: unknown key 'grid.rnage'; did you mean 'grid.range'? (valid: grid.range, grid.step, "
                "grid.points)"},
           Case{"grids:\n  range: 5\n", {}, "unknown section 'grids'; did you mean 'grid'?"},
           Case{"grid:\n  range: five\n", {}, "c.yaml:2: grid.range must be a number (got 'five')"},
           Case{"loss:\n  compositions: 2.5\n",
                {},
                "loss.compositions must be a whole number from 1 to 1,000,000,000 (got '2.5')"},
           Case{"loss:\n  kind: adp\n", {}, "loss.kind = 'adp' is not valid (valid: soft-pld, moments-accountant"},
           Case{"grid:\n  step: -1\n", {}, "grid.step must be positive"},
           Case{"grid:\n  step: 0.1\n  points: 11\n",
                {},
                "grid.points 11 disagrees with grid.range 5 / grid.step 0.1 (101 points)"},
           Case{"grid:\n  points: 100\n", {}, "grid.points must be 0 or an odd number"},
           Case{"loss:\n  epsilon: [1, 2]\n", {}, "loss.epsilon must be a single value"},
           Case{"schedule:\n  utility_weight_decay: maybe\n", {}, "must be true or false"},
           Case{"grid: [1, 2\n", {}, "c.yaml:"},
           Case{"",
                {"loss.epsilonn=1"},
                "--set: unknown key 'loss.epsilonn'; did you mean 'loss.epsilon'? (valid: loss.kind"},
           Case{"", {"loss.epsilon"}, "must look like section.key=value"},
           Case{"", {"pair.sampling_rate=2"}, "pair.sampling_rate must be in (0, 1]"},
           Case{"", {"target.mode=delta", "target.delta=0"}, "target.delta must be in (0, 1)"},
       }) {
    INFO(c.yaml);
    CHECK_THROWS_WITH(TrainingConfig::parse(c.yaml, "c.yaml", c.overrides), Catch::Contains(c.message));
  }
}

TEST_CASE("a map or a list written as a section or a key is an InputError naming the line", "[config]") {
  using noiselearn::testing::input_error_of;
  CHECK_THAT(input_error_of([] { TrainingConfig::parse("grid:\n  range: 4\n{loss: 1}: 2\n", "c.yaml"); }),
             Catch::Contains("c.yaml:3: a key must be a plain name, not a map"));
  CHECK_THAT(input_error_of([] { TrainingConfig::parse("loss:\n  [epsilon]: 1\n", "c.yaml"); }),
             Catch::Contains("c.yaml:2: a key must be a plain name, not a list"));
  // A null key reads "null", as before: an unknown section like any other.
  CHECK_THAT(input_error_of([] { TrainingConfig::parse("~: 1\n", "c.yaml"); }),
             Catch::Contains("c.yaml:1: unknown section 'null'"));
}

TEST_CASE("the reference table lists every key with its default", "[config]") {
  const std::string table = TrainingConfig::markdown_reference();
  for (const auto& key : TrainingConfig::schema()) CHECK_THAT(table, Catch::Contains("`" + key.name + "`"));
}

TEST_CASE("a key or a section given twice is an error naming both lines", "[config]") {
  // yaml-cpp keeps both entries of a repeated map key: read as they come, the last one would win silently.
  CHECK_THROWS_WITH(TrainingConfig::parse("loss:\n  epsilon: 1\n  kind: soft-pld\n  epsilon: 2\n", "c.yaml"),
                    Catch::Contains("c.yaml:4: key 'loss.epsilon' is given twice (lines 2 and 4)"));
  CHECK_THROWS_WITH(
      TrainingConfig::parse("loss:\n  epsilon: 1\ngrid:\n  range: 4\nloss:\n  compositions: 2\n", "c.yaml"),
      Catch::Contains("c.yaml:5: section 'loss' is given twice (lines 1 and 5)"));
  // The same key in two sections is two keys.
  CHECK_NOTHROW(TrainingConfig::parse("grid:\n  range: 4\n  step: 0.1\npair:\n  sensitivity: 1\n", "c.yaml"));
}

TEST_CASE("whole-number keys state their allowed range, and compositions stop at 10^9", "[config]") {
  struct Case {
    std::string yaml;
    std::vector<std::string> overrides;
    std::string message;
  };
  for (const Case& c : {
           Case{"loss:\n  compositions: 1e18\n",
                {},
                "c.yaml:2: loss.compositions must be a whole number from 1 to 1,000,000,000 (got '1e18')"},
           Case{"",
                {"loss.compositions=300000000000000"},
                "--set: loss.compositions must be a whole number from 1 to 1,000,000,000"},
           Case{"",
                {"loss.compositions=1000000001"},
                "loss.compositions must be a whole number from 1 to 1,000,000,000"},
           Case{"",
                {"loss.compositions=0"},
                "loss.compositions must be a whole number from 1 to 1,000,000,000 (got '0')"},
           Case{"", {"loss.compositions=1e400"}, "loss.compositions must be a whole number from 1 to 1,000,000,000"},
           Case{"model:\n  sigmoids: 1e12\n",
                {},
                "model.sigmoids must be a whole number from 1 to 1,000,000 (got '1e12')"},
           Case{"",
                {"certification.max_points=1e12"},
                "certification.max_points must be a whole number from 1,024 to 16,777,216"},
           Case{"", {"loss.buckets=1001"}, "loss.buckets must be even"},
           Case{"", {"optimiser.seed=-1"}, "optimiser.seed must be a whole number from 0 to 2^63 - 1"},
       }) {
    INFO(c.yaml << " " << (c.overrides.empty() ? "" : c.overrides[0]));
    CHECK_THROWS_WITH(TrainingConfig::parse(c.yaml, "c.yaml", c.overrides), Catch::Contains(c.message));
  }
  CHECK(TrainingConfig::parse("", "c.yaml", {"loss.compositions=1e9"}).loss_compositions == 1000000000);
  CHECK(TrainingConfig::parse("", "c.yaml", {"loss.compositions=128.0"}).loss_compositions == 128);
  // Integers are read as integers, not through a double: every digit of a large seed counts.
  CHECK(TrainingConfig::parse("optimiser:\n  seed: 123456789012345678\n", "c.yaml").optimiser_seed ==
        123456789012345678);
  // A library user who sets the field directly meets the same check.
  TrainingConfig config;
  config.loss_compositions = 300000000000000;
  CHECK_THROWS_WITH(config.validate(),
                    Catch::Contains("loss.compositions must be a whole number from 1 to 1,000,000,000"));
}

TEST_CASE("a sensitivity not less than the grid's width is refused, naming both keys", "[config]") {
  // On [-20, 20] a shift by s >= 40 leaves the table and its shift at most one common point: delta >= 1/2 for
  // every table (1 for s > 40), so training could only report that.
  for (const char* sensitivity : {"pair.sensitivity=50", "pair.sensitivity=40"})
    CHECK_THROWS_WITH(
        TrainingConfig::parse("grid:\n  range: 20\n  step: 0.5\n", "c.yaml", {sensitivity}),
        Catch::Contains("pair.sensitivity") && Catch::Contains("grid.range") && Catch::Contains("delta below 1/2"));
  CHECK_NOTHROW(TrainingConfig::parse("grid:\n  range: 20\n  step: 0.5\n", "c.yaml", {"pair.sensitivity=39.5"}));
}

TEST_CASE("a relative path in a config is relative to the config's directory, in --set to the working directory",
          "[config]") {
  const noiselearn::testing::ScratchDirectory scratch;
  std::filesystem::create_directories(scratch / "configs");
  noiselearn::testing::put_file(scratch / "configs" / "c.yaml", "model:\n  init_table: tables/start.csv\n");
  const TrainingConfig from_file = TrainingConfig::load(scratch / "configs" / "c.yaml");
  CHECK(from_file.model_init_table == (scratch / "configs" / "tables" / "start.csv").string());
  // Recorded absolute in the resolved config, which therefore means the same from any directory.
  CHECK_THAT(from_file.to_yaml(),
             Catch::Contains("  init_table: " + (scratch / "configs" / "tables" / "start.csv").string() + "\n"));
  const TrainingConfig overridden =
      TrainingConfig::load(scratch / "configs" / "c.yaml", {"model.init_table=other.csv"});
  CHECK(overridden.model_init_table == (std::filesystem::current_path() / "other.csv").string());
  const TrainingConfig absolute =
      TrainingConfig::parse("model:\n  init_table: /data/t.csv\n", "c.yaml", {}, scratch.path());
  CHECK(absolute.model_init_table == "/data/t.csv");
}
