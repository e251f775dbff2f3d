#include "losses/renyi_loss.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/errors.hpp"

namespace noiselearn {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

}  // namespace

std::string to_string(AlphaUpdate update) { return update == AlphaUpdate::kGradient ? "gradient" : "newton"; }
AlphaUpdate parse_alpha_update(const std::string& text) {
  if (text == "gradient") return AlphaUpdate::kGradient;
  if (text == "newton") return AlphaUpdate::kNewton;
  throw InputError(fmt::format("loss.alpha_update '{}' is not one of: gradient, newton", text));
}

void RenyiLossOptions::validate() const {
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon))
    throw InputError(fmt::format("loss.epsilon {} must be finite and >= 0", epsilon));
  if (compositions < 1) throw InputError(fmt::format("loss.compositions {} must be at least 1", compositions));
  if (!(initial_alpha > 1.0) || !std::isfinite(initial_alpha))
    throw InputError(fmt::format("loss.alpha {} must be finite and > 1", initial_alpha));
}

RenyiLoss::RenyiLoss(RenyiLossOptions options) : options_(options) {
  options_.validate();
  const torch::Tensor initial =
      torch::full({}, std::log(options_.initial_alpha - 1.0), torch::TensorOptions().dtype(torch::kDouble));
  const char* names[2] = {"log_alpha_minus_one_forward", "log_alpha_minus_one_backward"};
  for (int d = 0; d < 2; ++d) {
    // Newton mode: a buffer (saved in checkpoints, not seen by Adam).
    log_alpha_minus_one_[d] = options_.alpha_update == AlphaUpdate::kGradient
                                  ? register_parameter(names[d], initial.clone())
                                  : register_buffer(names[d], initial.clone());
  }
}

double RenyiLoss::alpha(int direction) const { return 1.0 + std::exp(log_alpha_minus_one_[direction].item<double>()); }

torch::Tensor RenyiLoss::direction_delta(const LogPair& pair, int direction) {
  const double n = static_cast<double>(options_.compositions), eps = options_.epsilon;
  const bool balle = options_.conversion == RdpConversion::kBalle;
  const MaskedLogPair m = masked_log_pair(pair);
  // G over the finite part only; the distinguishing events are paid for by omega below.
  const LogPair finite_part{torch::where(m.both_finite, pair.log_first, torch::full_like(pair.log_first, -kInfinity)),
                            pair.log_second};
  if (options_.alpha_update == AlphaUpdate::kNewton) {
    const double alpha_now = alpha(direction);
    const RenyiMomentDerivatives d = renyi_moment_derivatives(
        {finite_part.log_first.detach(),
         torch::where(m.both_finite, pair.log_second, torch::zeros_like(pair.log_second)).detach()},
        alpha_now);
    const double first = n * d.first - eps + (balle ? std::log1p(-1.0 / alpha_now) : 0.0);
    const double second = n * d.second + (balle ? 1.0 / (alpha_now * (alpha_now - 1.0)) : 0.0);
    const double next = guarded_newton_alpha(alpha_now, first, second);
    torch::NoGradGuard no_grad;
    log_alpha_minus_one_[direction].fill_(std::log(next - 1.0));
  }
  const torch::Tensor alpha = 1.0 + torch::exp(log_alpha_minus_one_[direction].to(pair.log_first.device()));
  const torch::Tensor g = log_renyi_moment(
      {finite_part.log_first, torch::where(m.both_finite, pair.log_second, torch::zeros_like(pair.log_second))}, alpha);
  torch::Tensor exponent = n * g - (alpha - 1.0) * eps;
  if (balle) exponent = exponent + (alpha - 1.0) * torch::log1p(-1.0 / alpha) - torch::log(alpha);
  // exp(t) for t <= 0, 1 + t above: continuous with a continuous derivative, never overflows.
  const torch::Tensor clipped = torch::clamp_max(exponent, 0.0);
  const torch::Tensor renyi_term = torch::where(exponent <= 0.0, torch::exp(clipped), 1.0 + exponent);
  // omega = first-mass of the distinguishing events; 1 - (1 - omega)^n = -expm1(n log1p(-omega)).
  const torch::Tensor omega_terms =
      torch::exp(torch::where(m.infinite_loss, pair.log_first, torch::full_like(pair.log_first, -kInfinity)));
  const torch::Tensor omega = torch::clamp(omega_terms.sum(), 0.0, 1.0 - 1e-16);
  if (options_.hybrid_renyi) return n * omega + renyi_term;  // eq. 24: T delta_p + delta'
  return -torch::expm1(n * torch::log1p(-omega)) + renyi_term;
}

}  // namespace noiselearn
