#pragma once
// Building a model and a privacy loss from their specifications (the config's model.* and loss.* keys).
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/noise_table.hpp"
#include "losses/privacy_loss.hpp"
#include "models/noise_model.hpp"

namespace noiselearn {

struct ModelSpecification {
  std::string kind = "sigmoid-stack";  // sigmoid-stack, free-logits, monotone-logits
  int64_t sigmoids = 10000;
  double slope = 500.0;
  bool symmetric = true;                 // free-logits
  std::string init = "paper";            // paper, uniform, truncated-gaussian, table
  double init_sigma = 0.0;               // truncated-gaussian start
  std::optional<NoiseTable> init_table;  // table start (must be on the model's grid)
};

// Throws InputError for an unknown kind or an initialisation the model cannot take (the sigmoid stack starts
// as the paper; the logit models start from any table on their grid).
std::shared_ptr<NoiseModel> make_noise_model(const Grid& grid, const ModelSpecification& specification);
// The model.kind each is built for (the kinds themselves, with their listing, are registered in io/model_kinds.cpp;
// geometric-tail is built by its optimiser): one line each.
using ModelFactory = std::shared_ptr<NoiseModel> (*)(const Grid&, const ModelSpecification&);
const std::vector<std::pair<std::string, ModelFactory>>& model_factories();

struct LossSpecification {
  std::string kind = "soft-pld";  // soft-pld, moments-accountant, privacy-buckets-adp, privacy-buckets-pdp, renyi, hrdp
  double epsilon = 0.3;
  int64_t compositions = 1;
  double moments_lambda_sq = 1.0;
  int64_t buckets = 1000;
  double bucket_factor = 0.0;
  double soft_pld_loss_step = 1e-3;
  double renyi_alpha = 10.0;                 // renyi: initial alpha
  std::string renyi_conversion = "mironov";  // mironov, balle
  std::string renyi_alpha_update = "gradient";
  // The fused single-pass functions where a loss has them (moments accountant, PrivacyBuckets); false: the
  // tensor-operation references (benchmarks and tests; not a config key).
  bool fused = true;
};

// The loss of specification.kind; InputError naming the nearest kind for an unknown one.
std::shared_ptr<PrivacyLoss> make_privacy_loss(const LossSpecification& specification);

// How each training loss is built, one line per loss.kind (factories.cpp). The kinds themselves, with their listing in
// configs/README.md and their rules on the other keys, are registered in io/loss_kinds.cpp, under the same names.
using LossFactory = std::shared_ptr<PrivacyLoss> (*)(const LossSpecification&);
const std::vector<std::pair<std::string, LossFactory>>& loss_factories();

}  // namespace noiselearn
