#include "io/kinds/adam.hpp"

#include "core/errors.hpp"
#include "io/training_config.hpp"

namespace noiselearn {

const std::vector<ConfigKey<AdamConfig>>& AdamConfig::keys() {
  using A = AdamConfig;
  static const std::vector<ConfigKey<A>> keys = {
      {"optimiser.epochs", &A::epochs, "epochs", "number of Adam steps", WholeRange{0, 1000000000}},
      {"optimiser.learning_rate", &A::learning_rate, "", "initial Adam learning rate"},
      {"optimiser.learning_rate_decay", &A::learning_rate_decay, "per epoch", "exponential learning-rate decay factor"},
  };
  return keys;
}

void AdamConfig::validate() const {
  using config_schema::require;
  require(config_schema::positive(learning_rate), "optimiser.learning_rate", "must be positive");
  require(learning_rate_decay > 0.0 && learning_rate_decay <= 1.0, "optimiser.learning_rate_decay",
          "must be in (0, 1]");
}

OptimiserKind adam_optimiser_kind() {
  OptimiserKind kind;
  kind.name = "adam";
  kind.summary = "Sommer et al.; grid models";
  kind.resumable_length_key = [](const TrainingConfig& c) -> std::string {
    if (c.target_mode != "none") throw InputError("--resume continues a plain run; it does not apply to target.mode");
    return "optimiser.epochs";
  };
  kind.learner_task = "training a neural model with Adam";
  return kind;
}

}  // namespace noiselearn
