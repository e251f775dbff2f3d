// The YAML training configuration: defaults, overrides, and errors that name the key.
#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "io/training_config.hpp"

using namespace noiselearn;

TEST_CASE("an empty config gives the documented defaults", "[config]") {
  const TrainingConfig config = TrainingConfig::parse("", "empty.yaml");
  CHECK(config.model_kind == "sigmoid-stack");
  CHECK(config.model_sigmoids == 10000);
  CHECK(config.loss_epsilon == 0.3);
  CHECK(config.grid().size == 60001);  // the paper's scale
  CHECK(config.grid().step == Approx(1.0 / 6000.0));
  CHECK(config.optimiser_learning_rate_decay == 0.99995);
  CHECK(config.certification_deltas == std::vector<double>{1e-3, 1e-6, 1e-9});
}

TEST_CASE("keys are read, typed and overridden with --set", "[config]") {
  const std::string yaml = "grid:\n  range: 5\n  step: 0.01\nloss:\n  kind: moments-accountant\n  compositions: 128\n"
                           "certification:\n  deltas: [1e-5, 1e-7]\nschedule:\n  utility_weight_decay: false\n";
  const TrainingConfig config =
      TrainingConfig::parse(yaml, "c.yaml", {"loss.epsilon=0.5", "optimiser.epochs=20", "certification.epsilons=[0.3, 1]"});
  CHECK(config.loss_kind == "moments-accountant");
  CHECK(config.loss_compositions == 128);
  CHECK(config.loss_epsilon == 0.5);
  CHECK(config.optimiser_epochs == 20);
  CHECK(config.certification_deltas == std::vector<double>{1e-5, 1e-7});
  CHECK(config.certification_epsilons == std::vector<double>{0.3, 1.0});
  CHECK_FALSE(config.schedule_utility_weight_decay);
}

TEST_CASE("the resolved YAML reads back to the same configuration", "[config]") {
  const TrainingConfig config = TrainingConfig::parse("", "x", {"grid.step=0.1", "model.init_table=t.csv", "loss.buckets=500"});
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
           Case{"grid:\n  rnage: 5\n", {}, "c.yaml:2: unknown key 'grid.rnage' (valid: grid.range, grid.step, grid.points)"},
           Case{"grids:\n  range: 5\n", {}, "unknown section 'grids'"},
           Case{"grid:\n  range: five\n", {}, "c.yaml:2: grid.range must be a number (got 'five')"},
           Case{"loss:\n  compositions: 2.5\n", {}, "loss.compositions must be a whole number"},
           Case{"loss:\n  kind: adp\n", {}, "loss.kind = 'adp' is not valid (valid: soft-pld, moments-accountant"},
           Case{"grid:\n  step: -1\n", {}, "grid.step must be positive"},
           Case{"grid:\n  step: 0.1\n  points: 11\n", {}, "grid.points 11 disagrees with grid.range 5 / grid.step 0.1 (101 points)"},
           Case{"grid:\n  points: 100\n", {}, "grid.points must be 0 or an odd number"},
           Case{"loss:\n  epsilon: [1, 2]\n", {}, "loss.epsilon must be a single value"},
           Case{"schedule:\n  utility_weight_decay: maybe\n", {}, "must be true or false"},
           Case{"grid: [1, 2\n", {}, "c.yaml:"},
           Case{"", {"loss.epsilonn=1"}, "--set: unknown key 'loss.epsilonn' (valid: loss.kind"},
           Case{"", {"loss.epsilon"}, "must look like section.key=value"},
           Case{"", {"pair.sampling_rate=2"}, "pair.sampling_rate must be in (0, 1]"},
           Case{"", {"target.mode=delta", "target.delta=0"}, "target.delta must be in (0, 1)"},
       }) {
    INFO(c.yaml);
    CHECK_THROWS_WITH(TrainingConfig::parse(c.yaml, "c.yaml", c.overrides), Catch::Contains(c.message));
  }
}

TEST_CASE("the reference table lists every key with its default", "[config]") {
  const std::string table = TrainingConfig::markdown_reference();
  for (const auto& key : TrainingConfig::schema()) CHECK_THAT(table, Catch::Contains("`" + key.name + "`"));
}
