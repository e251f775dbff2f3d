#include "losses/privacy_buckets_loss.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/errors.hpp"
#include "losses/privacy_buckets_fused.hpp"
#include "losses/privacy_buckets_surrogates.hpp"

namespace noiselearn {

void PrivacyBucketsOptions::validate() const {
  if (!std::isfinite(epsilon) || epsilon < 0.0)
    throw InputError(fmt::format("privacy buckets: epsilon must be finite and >= 0 (got {})", epsilon));
  if (compositions < 1)
    throw InputError(fmt::format("privacy buckets: compositions must be >= 1 (got {})", compositions));
  if (buckets < 2 || buckets % 2 != 0)
    throw InputError(fmt::format("privacy buckets: buckets (2h) must be an even number >= 2 (got {})", buckets));
  if (factor != 0.0 && !(std::isfinite(factor) && factor > 1.0))
    throw InputError(fmt::format("privacy buckets: factor must be > 1, or 0 for automatic (got {})", factor));
}

PrivacyBucketsLoss::PrivacyBucketsLoss(PrivacyBucketsOptions options) : options_(options) { options_.validate(); }

std::string PrivacyBucketsLoss::loss_name() const {
  return options_.kind == PrivacyBucketsOptions::Kind::kAdp ? "privacy-buckets-adp" : "privacy-buckets-pdp";
}

double PrivacyBucketsLoss::log_factor(const LogPair& pair) const {
  torch::NoGradGuard no_grad;
  return log_factor(pair, torch::exp(pair.log_first.detach()));
}

double PrivacyBucketsLoss::log_factor(const LogPair& pair, const torch::Tensor& first) const {
  if (options_.factor != 0.0) return std::log(options_.factor);
  torch::NoGradGuard no_grad;
  std::optional<FiniteLossMoments> moments;
  if (options_.fused && is_cpu_float64(pair)) moments = finite_loss_moments(pair, first);
  if (!moments) {
    const torch::Tensor mask = finite_loss_mask(pair);
    const torch::Tensor masses = torch::where(mask, first, torch::zeros_like(first));
    const torch::Tensor losses = safe_privacy_losses(pair);
    moments = FiniteLossMoments{masses.sum().item<double>()};
    if (moments->mass > 0.0) {
      moments->mean = (masses * losses).sum().item<double>() / moments->mass;
      moments->variance = (masses * (losses - moments->mean).square()).sum().item<double>() / moments->mass;
    }
  }
  double composed_mean = 0.0, composed_deviation = 0.0;
  if (moments->mass > 0.0) {
    const double n = static_cast<double>(options_.compositions);
    composed_mean = std::abs(n * moments->mean);
    composed_deviation = std::sqrt(n * moments->variance);
  }
  double range = std::max(options_.epsilon, composed_mean) + 2.0 * composed_deviation;
  if (range <= 0.0) range = 1.0;
  return range / static_cast<double>(options_.buckets / 2);
}

PrivacyBuckets PrivacyBucketsLoss::single_release_buckets(const LogPair& pair, double log_factor) const {
  torch::Tensor first;
  {
    torch::NoGradGuard no_grad;
    first = torch::exp(pair.log_first.detach());
  }
  return single_release_buckets(pair, first, log_factor);
}

PrivacyBuckets PrivacyBucketsLoss::single_release_buckets(const LogPair& pair, const torch::Tensor& first_masses,
                                                          double log_factor) const {
  const int64_t half = options_.buckets / 2;
  if (options_.fused && is_cpu_float64(pair)) return fused_single_release_buckets(pair, first_masses, log_factor, half);
  const torch::Tensor first = torch::exp(pair.log_first);
  const torch::Tensor zeros = torch::zeros_like(first);
  const torch::Tensor masses = torch::where(finite_loss_mask(pair), first, zeros);
  const torch::Tensor distinguishing = torch::where(infinite_loss_mask(pair), first, zeros).sum();
  // x_i = ceil(L_i / ln f): f^{x_i - 1} < e^{L_i} <= f^{x_i} (section 3.4.2).
  const torch::Tensor indices = ceil_straight_through(safe_privacy_losses(pair) / log_factor);
  // Bucket -h: every loss <= -h ln f, i.e. x_i < -h + 1.
  const torch::Tensor collected_below =
      (masses * smaller_than(indices, static_cast<double>(-half + 1))).sum().unsqueeze(0);
  // Infinity: every loss > h ln f, i.e. h < x_i, and the distinguishing events.
  const torch::Tensor beyond = (masses * smaller_than(static_cast<double>(half), indices)).sum();
  return {torch::cat({collected_below, equal_bucket_masses(masses, indices, half)}), distinguishing + beyond};
}

torch::Tensor PrivacyBucketsLoss::delta_of(const PrivacyBuckets& composed, double log_factor) const {
  const int64_t half = composed.half();
  if (options_.fused && is_cpu_float64_vector(composed.finite)) {
    // The same weights (below) in one loop, and one dot product: two tensor operations and their backward instead of
    // a dozen (each microseconds of dispatch at 2h + 1 = 1,001 buckets). std::expm1 for torch's vectorised one: both
    // within an ulp.
    torch::Tensor weights_t = torch::zeros({2 * half + 1}, composed.finite.options());
    double* weights = weights_t.data_ptr<double>();
    const double first_counted = std::ceil(options_.epsilon / log_factor);
    const bool adp = options_.kind == PrivacyBucketsOptions::Kind::kAdp;
    for (int64_t k = 0; k <= 2 * half; ++k) {
      const double j = static_cast<double>(k - half);
      if (j >= first_counted) weights[k] = adp ? std::max(-std::expm1(options_.epsilon - j * log_factor), 0.0) : 1.0;
    }
    return composed.infinity + torch::dot(weights_t, composed.finite);
  }
  const torch::Tensor j = torch::arange(-half, half + 1, composed.finite.options());
  // j >= eps / ln f, as printed (an exact indicator: it depends on no parameter).
  const torch::Tensor counted = j >= std::ceil(options_.epsilon / log_factor);
  // ADP: 1 - e^{eps - j ln f}, clamped at 0 against rounding at j ln f = eps; PDP: every counted bucket fully.
  const torch::Tensor weights = options_.kind == PrivacyBucketsOptions::Kind::kAdp
                                    ? torch::clamp_min(-torch::expm1(options_.epsilon - j * log_factor), 0.0)
                                    : torch::ones_like(j);
  return composed.infinity + (torch::where(counted, weights, torch::zeros_like(j)) * composed.finite).sum();
}

torch::Tensor PrivacyBucketsLoss::direction_delta(const LogPair& pair, int /*direction*/) {
  torch::Tensor first = pair.first;  // e^{log first}, once for the factor and the buckets (the caller's, if given)
  if (!first.defined() || first.sizes() != pair.log_first.sizes() || first.device() != pair.log_first.device()) {
    torch::NoGradGuard no_grad;
    first = torch::exp(pair.log_first.detach());
  }
  const double ln_f = log_factor(pair, first);
  const PrivacyBuckets single = single_release_buckets(pair, first, ln_f);
  return delta_of(
      options_.fused ? self_compose_fused(single, options_.compositions) : self_compose(single, options_.compositions),
      ln_f);
}

}  // namespace noiselearn
