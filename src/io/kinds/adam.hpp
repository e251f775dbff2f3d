#pragma once
// optimiser.kind = adam (Sommer et al.): its options, the optimiser.* keys only Adam reads, and its registration.
// How it is built lives above, with LibTorch (run/link_learners.cpp).
#include <cstdint>
#include <vector>

#include "io/config_schema.hpp"
#include "io/training_kinds.hpp"

namespace noiselearn {

struct AdamConfig {
  int64_t epochs = 15000;
  double learning_rate = 1e-3;
  double learning_rate_decay = 0.99995;  // per epoch

  static const std::vector<ConfigKey<AdamConfig>>& keys();
  void validate() const;  // ranges; an InputError naming the key
};

OptimiserKind adam_optimiser_kind();

}  // namespace noiselearn
