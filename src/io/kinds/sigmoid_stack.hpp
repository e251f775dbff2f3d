#pragma once
// model.kind = sigmoid-stack (Sommer et al. eq. 4): its options and its registration. The model lives in
// models/sigmoid_stack.
#include <cstdint>
#include <vector>

#include "io/config_schema.hpp"
#include "io/training_kinds.hpp"

namespace noiselearn {

struct SigmoidStackConfig {
  int64_t sigmoids = 10000;  // K
  double slope = 500.0;      // C, 1/x units

  static const std::vector<ConfigKey<SigmoidStackConfig>>& keys();
  void validate() const;
};

ModelKind sigmoid_stack_model_kind();

}  // namespace noiselearn
