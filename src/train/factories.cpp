#include "train/factories.hpp"

#include <fmt/format.h>

#include "core/baselines.hpp"
#include "core/errors.hpp"
#include "core/nearest_word.hpp"
#include "losses/moments_accountant_loss.hpp"
#include "losses/privacy_buckets_loss.hpp"
#include "losses/renyi_loss.hpp"
#include "losses/renyi_objective.hpp"
#include "losses/soft_pld_loss.hpp"
#include "models/free_logits.hpp"
#include "models/monotone_logits.hpp"
#include "models/sigmoid_stack.hpp"

namespace noiselearn {

namespace {

// The table a logit model starts from, or nullopt for the model's own default.
std::optional<NoiseTable> starting_table(const Grid& grid, const ModelSpecification& s) {
  if (s.init == "truncated-gaussian") {
    if (!(s.init_sigma > 0.0))
      throw InputError("model.init_sigma must be positive when model.init = truncated-gaussian");
    return truncated_gaussian_table(grid, s.init_sigma, std::max(std::abs(grid.origin), std::abs(grid.last())));
  }
  if (s.init == "table") {
    if (!s.init_table) throw InputError("model.init = table needs model.init_table");
    const Grid& g = s.init_table->grid();
    if (g.size != grid.size || std::abs(g.origin - grid.origin) > 1e-9 * grid.step ||
        std::abs(g.step - grid.step) > 1e-9 * grid.step)
      throw InputError(
          fmt::format("model.init_table is on a different grid ({}) than the model ({})", describe(g), describe(grid)));
    return NoiseTable(grid, s.init_table->probabilities(), std::nullopt, s.init_table->provenance());
  }
  return std::nullopt;
}

}  // namespace

namespace {

std::shared_ptr<NoiseModel> make_sigmoid_stack(const Grid& grid, const ModelSpecification& s) {
  if (s.init != "paper")
    throw InputError(
        fmt::format("model.init = {} is for the logit models; the sigmoid stack starts as the paper "
                    "(model.init = paper)",
                    s.init));
  SigmoidStackOptions options;
  options.sigmoids = s.sigmoids;
  options.slope = s.slope;
  return std::make_shared<SigmoidStack>(grid, options);
}

std::shared_ptr<NoiseModel> make_free_logits(const Grid& grid, const ModelSpecification& s) {
  FreeLogitsOptions options;
  options.symmetric = s.symmetric;
  if (auto table = starting_table(grid, s)) return FreeLogits::from_table(*table, options);
  return std::make_shared<FreeLogits>(grid, options);
}

std::shared_ptr<NoiseModel> make_monotone_logits(const Grid& grid, const ModelSpecification& s) {
  if (auto table = starting_table(grid, s)) return MonotoneLogits::from_table(*table);
  return std::make_shared<MonotoneLogits>(grid, MonotoneLogitsOptions{});
}

}  // namespace

const std::vector<std::pair<std::string, ModelFactory>>& model_factories() {
  static const std::vector<std::pair<std::string, ModelFactory>> factories{
      {"sigmoid-stack", &make_sigmoid_stack},
      {"free-logits", &make_free_logits},
      {"monotone-logits", &make_monotone_logits},
  };
  return factories;
}

std::shared_ptr<NoiseModel> make_noise_model(const Grid& grid, const ModelSpecification& s) {
  std::vector<std::string> names;
  for (const auto& [kind, make] : model_factories()) {
    if (kind == s.kind) return make(grid, s);
    names.push_back(kind);
  }
  throw InputError(fmt::format("unknown model.kind '{}' (valid: {})", s.kind, fmt::join(names, ", ")));
}

namespace {

RenyiLossOptions renyi_options_of(const LossSpecification& s) {
  RenyiLossOptions options;
  options.epsilon = s.epsilon;
  options.compositions = s.compositions;
  options.initial_alpha = s.renyi_alpha;
  options.alpha_update = parse_alpha_update(s.renyi_alpha_update);
  return options;
}

std::shared_ptr<PrivacyLoss> make_renyi_loss(const LossSpecification& s) {
  RenyiLossOptions options = renyi_options_of(s);
  options.conversion = s.renyi_conversion == "balle" ? RdpConversion::kBalle : RdpConversion::kMironov;
  return std::make_shared<RenyiLoss>(options);
}

// Xiao et al.'s eq. 24 converts the HRDP budget itself; loss.rdp_conversion does not apply.
std::shared_ptr<PrivacyLoss> make_hybrid_renyi_loss(const LossSpecification& s) {
  RenyiLossOptions options = renyi_options_of(s);
  options.hybrid_renyi = true;
  options.conversion = RdpConversion::kMironov;
  return std::make_shared<RenyiLoss>(options);
}

std::shared_ptr<PrivacyLoss> make_soft_pld_loss(const LossSpecification& s) {
  SoftPldLossOptions options;
  options.epsilon = s.epsilon;
  options.compositions = s.compositions;
  options.loss_step = s.soft_pld_loss_step;
  options.fused = s.fused;
  return std::make_shared<SoftPldLoss>(options);
}

std::shared_ptr<PrivacyLoss> make_moments_accountant_loss(const LossSpecification& s) {
  MomentsAccountantLossOptions options;
  options.epsilon = s.epsilon;
  options.compositions = s.compositions;
  options.initial_lambda_sq = s.moments_lambda_sq;
  options.fused = s.fused;
  return std::make_shared<MomentsAccountantLoss>(options);
}

template <PrivacyBucketsOptions::Kind kind>
std::shared_ptr<PrivacyLoss> make_privacy_buckets_loss(const LossSpecification& s) {
  PrivacyBucketsOptions options;
  options.epsilon = s.epsilon;
  options.compositions = s.compositions;
  options.buckets = s.buckets;
  options.factor = s.bucket_factor;
  options.kind = kind;
  options.fused = s.fused;
  return std::make_shared<PrivacyBucketsLoss>(options);
}

}  // namespace

const std::vector<std::pair<std::string, LossFactory>>& loss_factories() {
  static const std::vector<std::pair<std::string, LossFactory>> factories{
      {"soft-pld", &make_soft_pld_loss},
      {"moments-accountant", &make_moments_accountant_loss},
      {"privacy-buckets-adp", &make_privacy_buckets_loss<PrivacyBucketsOptions::Kind::kAdp>},
      {"privacy-buckets-pdp", &make_privacy_buckets_loss<PrivacyBucketsOptions::Kind::kPdp>},
      {"renyi", &make_renyi_loss},
      {"hrdp", &make_hybrid_renyi_loss},
  };
  return factories;
}

std::shared_ptr<PrivacyLoss> make_privacy_loss(const LossSpecification& s) {
  std::vector<std::string> names;
  for (const auto& [kind, make] : loss_factories()) {
    if (kind == s.kind) {
      std::shared_ptr<PrivacyLoss> loss = make(s);
      loss->symmetric_shortcut = s.fused;
      return loss;
    }
    names.push_back(kind);
  }
  throw InputError(
      fmt::format("unknown loss.kind '{}'{} (valid: {})", s.kind, did_you_mean(s.kind, names), fmt::join(names, ", ")));
}

}  // namespace noiselearn
