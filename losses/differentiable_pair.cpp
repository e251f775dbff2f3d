#include "losses/differentiable_pair.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace noiselearn {

namespace {

torch::Tensor pad_with_zeros(const torch::Tensor& log_p, int64_t before, int64_t after) {
  const auto options = log_p.options();
  const double minus_infinity = -std::numeric_limits<double>::infinity();
  return torch::cat({torch::full({before}, minus_infinity, options), log_p, torch::full({after}, minus_infinity, options)});
}

}  // namespace

DifferentiablePair additive_pair(const torch::Tensor& log_p, int64_t shift_cells) {
  if (shift_cells < 0) throw std::invalid_argument("shift must be non-negative");
  return {pad_with_zeros(log_p, 0, shift_cells), pad_with_zeros(log_p, shift_cells, 0)};
}

DifferentiablePair subsampled_pair(const torch::Tensor& log_p, int64_t shift_cells, double sampling_rate) {
  DifferentiablePair pair = additive_pair(log_p, shift_cells);
  if (sampling_rate >= 1.0) return pair;
  // log((1-q) A + q B), safe where both are -inf (logaddexp of two -inf gives -inf with finite gradients
  // only when handled: replace by a finite stand-in and mask afterwards).
  const torch::Tensor both_zero = torch::logical_and(torch::isinf(pair.log_a), torch::isinf(pair.log_b));
  const torch::Tensor a = torch::where(both_zero, torch::zeros_like(pair.log_a), pair.log_a) + std::log1p(-sampling_rate);
  const torch::Tensor b = torch::where(both_zero, torch::zeros_like(pair.log_b), pair.log_b) + std::log(sampling_rate);
  const torch::Tensor mixed = torch::logaddexp(a, b);
  pair.log_b = torch::where(both_zero, torch::full_like(mixed, -std::numeric_limits<double>::infinity()), mixed);
  return pair;
}

torch::Tensor finite_loss_mask(const LogPair& pair) {
  torch::NoGradGuard guard;
  return torch::logical_and(torch::isfinite(pair.log_first), torch::isfinite(pair.log_second));
}

torch::Tensor infinite_loss_mask(const LogPair& pair) {
  torch::NoGradGuard guard;
  return torch::logical_and(torch::isfinite(pair.log_first), torch::logical_not(torch::isfinite(pair.log_second)));
}

bool is_cpu_float64_vector(const torch::Tensor& t) {
  return t.device().is_cpu() && t.scalar_type() == torch::kDouble && t.is_contiguous() && t.dim() == 1;
}

bool is_cpu_float64(const LogPair& pair) {
  return is_cpu_float64_vector(pair.log_first) && is_cpu_float64_vector(pair.log_second) &&
         pair.log_first.size(0) == pair.log_second.size(0);
}

torch::Tensor safe_privacy_losses(const LogPair& pair) {
  const torch::Tensor mask = finite_loss_mask(pair);
  const torch::Tensor first = torch::where(mask, pair.log_first, torch::zeros_like(pair.log_first));
  const torch::Tensor second = torch::where(mask, pair.log_second, torch::zeros_like(pair.log_second));
  return first - second;
}

}  // namespace noiselearn
