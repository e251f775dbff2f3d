#include "losses/moments_accountant_loss.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/errors.hpp"

namespace noiselearn {

void MomentsAccountantLossOptions::validate() const {
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon)) throw InputError(fmt::format("loss.epsilon {} must be finite and >= 0", epsilon));
  if (compositions < 1) throw InputError(fmt::format("loss.compositions {} must be at least 1", compositions));
  if (!std::isfinite(initial_lambda_sq)) throw InputError("moments accountant initial lambda must be finite");
}

MomentsAccountantLoss::MomentsAccountantLoss(MomentsAccountantLossOptions options) : options_(options) {
  options_.validate();
  const auto double_options = torch::TensorOptions().dtype(torch::kDouble);
  lambda_sq_[0] = register_parameter("lambda_sq_forward", torch::full({}, options_.initial_lambda_sq, double_options));
  lambda_sq_[1] = register_parameter("lambda_sq_backward", torch::full({}, options_.initial_lambda_sq, double_options));
}

double MomentsAccountantLoss::lambda(int direction) const {
  const double s = lambda_sq_[direction].item<double>();
  return s * s + 1e-4;
}

torch::Tensor MomentsAccountantLoss::direction_delta(const LogPair& pair, int direction) {
  const torch::Tensor& lambda_sq = lambda_sq_[direction];
  const torch::Tensor lambda = lambda_sq.to(pair.log_first.device()) * lambda_sq.to(pair.log_first.device()) + 1e-4;
  const torch::Tensor finite = finite_loss_mask(pair), infinite = infinite_loss_mask(pair);
  const double n = static_cast<double>(options_.compositions);

  // Gamma_lambda = logsumexp over the common support of (1 + lambda) log first - lambda log second.
  const torch::Tensor log_first = torch::where(finite, pair.log_first, torch::zeros_like(pair.log_first));
  const torch::Tensor log_second = torch::where(finite, pair.log_second, torch::zeros_like(pair.log_second));
  const torch::Tensor terms = (1.0 + lambda) * log_first - lambda * log_second;
  const double minus_infinity = -std::numeric_limits<double>::infinity();
  const torch::Tensor gamma = torch::logsumexp(torch::where(finite, terms, torch::full_like(terms, minus_infinity)), 0);
  const torch::Tensor exponent = n * gamma - lambda * options_.epsilon;
  // exp(t) for t <= 0, 1 + t above: continuous with a continuous derivative, never overflows.
  const torch::Tensor clipped = torch::clamp_max(exponent, 0.0);
  const torch::Tensor moment_term = torch::where(exponent <= 0.0, torch::exp(clipped), 1.0 + exponent);

  // omega = sum of first over the distinguishing events; 1 - (1 - omega)^n = -expm1(n log1p(-omega)).
  const torch::Tensor first_probability = torch::exp(torch::where(infinite, pair.log_first, torch::full_like(pair.log_first, minus_infinity)));
  const torch::Tensor omega = torch::clamp(first_probability.sum(), 0.0, 1.0 - 1e-16);
  const torch::Tensor composed_omega = -torch::expm1(n * torch::log1p(-omega));
  return composed_omega + moment_term;
}

}  // namespace noiselearn
