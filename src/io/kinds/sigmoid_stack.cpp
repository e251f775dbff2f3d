#include "io/kinds/sigmoid_stack.hpp"

namespace noiselearn {

const std::vector<ConfigKey<SigmoidStackConfig>>& SigmoidStackConfig::keys() {
  using S = SigmoidStackConfig;
  static const std::vector<ConfigKey<S>> keys = {
      // Up to 10^6: a stack that trains in seconds an epoch within about 1 GB; 10^7 takes minutes an epoch and
      // several GB (tests/benchmarks/README.md, "The sigmoid stack").
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
