#include "io/kinds/sigmoid_stack.hpp"

namespace noiselearn {

const std::vector<ConfigKey<SigmoidStackConfig>>& SigmoidStackConfig::keys() {
  using S = SigmoidStackConfig;
  static const std::vector<ConfigKey<S>> keys = {
      // measured: K = 1e6 trains 2 epochs in 7 s and 1 GB; 1e7 took 8 min, 6.5 GB
      {"model.sigmoids", &S::sigmoids, "",
       "K, number of sigmoids of the sigmoid stack (1 to 1,000,000: about 1 KB of memory each)",
       WholeRange{1, 1000000}},
      {"model.slope", &S::slope, "1/x units", "C, the fixed slope of the sigmoids"},
  };
  return keys;
}

void SigmoidStackConfig::validate() const {
  config_schema::require(config_schema::positive(slope), "model.slope", "must be positive");
}

ModelKind sigmoid_stack_model_kind() { return named_kind("sigmoid-stack", "Sommer et al. eq. 4"); }

}  // namespace noiselearn
