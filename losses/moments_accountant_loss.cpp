#include "losses/moments_accountant_loss.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <tuple>

#include "core/errors.hpp"

namespace noiselearn {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// (Gamma_lambda, omega) of one direction in one pass: t_i = (1 + lambda) log first_i - lambda log second_i over the
// outcomes where both are finite, Gamma = max t + log sum e^{t_i - max t} (one vectorised exp), omega = the sum of
// first over the distinguishing outcomes. Backward, with the softmax weights pi_i = e^{t_i - Gamma} (saved):
//   dGamma/dlog first_i = (1 + lambda) pi_i, dGamma/dlog second_i = -lambda pi_i,
//   dGamma/dlambda = sum_i pi_i (log first_i - log second_i), domega/dlog first_i = first_i (distinguishing i).
// No finite outcome: Gamma = -inf, as logsumexp of nothing, with zero gradients.
class LogMomentAndOmega : public torch::autograd::Function<LogMomentAndOmega> {
 public:
  static variable_list forward(AutogradContext* ctx, const torch::Tensor& log_first, const torch::Tensor& log_second,
                               const torch::Tensor& lambda) {
    const int64_t N = log_first.size(0);
    const double l = lambda.item<double>();
    const double* lf = log_first.data_ptr<double>();
    const double* ls = log_second.data_ptr<double>();
    const auto float64 = torch::TensorOptions().dtype(torch::kDouble);
    torch::Tensor weights_t = torch::empty({N}, float64);
    double* weights = weights_t.data_ptr<double>();
    double top = -std::numeric_limits<double>::infinity(), omega = 0.0;
    for (int64_t i = 0; i < N; ++i) {
      const bool first_finite = std::isfinite(lf[i]), second_finite = std::isfinite(ls[i]);
      weights[i] =
          first_finite && second_finite ? (1.0 + l) * lf[i] - l * ls[i] : -std::numeric_limits<double>::infinity();
      top = std::max(top, weights[i]);
      if (first_finite && !second_finite) omega += std::exp(lf[i]);
    }
    double gamma = -std::numeric_limits<double>::infinity();
    if (std::isfinite(top)) {
      weights_t.sub_(top).exp_();
      double total = 0.0;
      for (int64_t i = 0; i < N; ++i) total += weights[i];
      gamma = top + std::log(total);
      weights_t.div_(total);
    } else {
      weights_t.zero_();
    }
    ctx->saved_data["weights"] = weights_t;
    ctx->saved_data["log_first"] = log_first.detach();
    ctx->saved_data["log_second"] = log_second.detach();
    ctx->saved_data["lambda"] = l;
    return {torch::full({}, gamma, float64), torch::full({}, omega, float64)};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const torch::Tensor weights_t = ctx->saved_data["weights"].toTensor();
    const torch::Tensor log_first = ctx->saved_data["log_first"].toTensor(),
                        log_second = ctx->saved_data["log_second"].toTensor();
    const double l = ctx->saved_data["lambda"].toDouble();
    const double g_gamma = grad_outputs[0].defined() ? grad_outputs[0].item<double>() : 0.0;
    const double g_omega = grad_outputs[1].defined() ? grad_outputs[1].item<double>() : 0.0;
    const int64_t N = weights_t.size(0);
    const double* weights = weights_t.data_ptr<double>();
    const double* lf = log_first.data_ptr<double>();
    const double* ls = log_second.data_ptr<double>();
    const auto float64 = torch::TensorOptions().dtype(torch::kDouble);
    // Every element is written below (no zero fill first).
    torch::Tensor grad_first_t = torch::empty({N}, float64), grad_second_t = torch::empty({N}, float64);
    double* grad_first = grad_first_t.data_ptr<double>();
    double* grad_second = grad_second_t.data_ptr<double>();
    double grad_lambda = 0.0;
    for (int64_t i = 0; i < N; ++i) {
      grad_first[i] = 0.0;
      grad_second[i] = 0.0;
      if (weights[i] > 0.0) {
        grad_first[i] = g_gamma * (1.0 + l) * weights[i];
        grad_second[i] = -g_gamma * l * weights[i];
        grad_lambda += weights[i] * (lf[i] - ls[i]);
      } else if (std::isfinite(lf[i]) && !std::isfinite(ls[i])) {
        grad_first[i] = g_omega * std::exp(lf[i]);
      }
    }
    return {grad_first_t, grad_second_t, torch::full({}, g_gamma * grad_lambda, float64)};
  }
};

bool fusable(const LogPair& pair, const torch::Tensor& lambda) {
  return is_cpu_float64(pair) && lambda.device().is_cpu() && lambda.scalar_type() == torch::kDouble;
}

}  // namespace

void MomentsAccountantLossOptions::validate() const {
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon))
    throw InputError(fmt::format("loss.epsilon {} must be finite and >= 0", epsilon));
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
  const double n = static_cast<double>(options_.compositions);
  torch::Tensor gamma, omega;
  if (options_.fused && fusable(pair, lambda)) {
    const variable_list out = LogMomentAndOmega::apply(pair.log_first, pair.log_second, lambda);
    gamma = out[0];
    omega = torch::clamp(out[1], 0.0, 1.0 - 1e-16);
  } else {
    std::tie(gamma, omega) = reference_log_moment_and_omega(pair, lambda);
  }
  const torch::Tensor exponent = n * gamma - lambda * options_.epsilon;
  // exp(t) for t <= 0, 1 + t above: continuous with a continuous derivative, never overflows.
  const torch::Tensor clipped = torch::clamp_max(exponent, 0.0);
  const torch::Tensor moment_term = torch::where(exponent <= 0.0, torch::exp(clipped), 1.0 + exponent);
  // 1 - (1 - omega)^n = -expm1(n log1p(-omega)).
  const torch::Tensor composed_omega = -torch::expm1(n * torch::log1p(-omega));
  return composed_omega + moment_term;
}

std::pair<torch::Tensor, torch::Tensor> MomentsAccountantLoss::reference_log_moment_and_omega(
    const LogPair& pair, const torch::Tensor& lambda) {
  const torch::Tensor finite = finite_loss_mask(pair), infinite = infinite_loss_mask(pair);
  // Gamma_lambda = logsumexp over the common support of (1 + lambda) log first - lambda log second.
  const torch::Tensor log_first = torch::where(finite, pair.log_first, torch::zeros_like(pair.log_first));
  const torch::Tensor log_second = torch::where(finite, pair.log_second, torch::zeros_like(pair.log_second));
  const torch::Tensor terms = (1.0 + lambda) * log_first - lambda * log_second;
  const double minus_infinity = -std::numeric_limits<double>::infinity();
  const torch::Tensor gamma = torch::logsumexp(torch::where(finite, terms, torch::full_like(terms, minus_infinity)), 0);
  // omega = sum of first over the distinguishing events.
  const torch::Tensor first_probability =
      torch::exp(torch::where(infinite, pair.log_first, torch::full_like(pair.log_first, minus_infinity)));
  return {gamma, torch::clamp(first_probability.sum(), 0.0, 1.0 - 1e-16)};
}

}  // namespace noiselearn
