#include "models/sigmoid_stack.hpp"

#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>

#include <cmath>
#include <tuple>

#include "core/errors.hpp"
#include "models/sigmoid_stack_evaluation.hpp"
#include "models/sigmoid_stack_fused.hpp"
#include "models/symmetric_half.hpp"

namespace noiselearn {

void SigmoidStackOptions::validate() const {
  if (sigmoids < 1) throw InputError(fmt::format("sigmoid stack: sigmoids must be at least 1, got {}", sigmoids));
  if (!std::isfinite(slope) || slope <= 0.0)
    throw InputError(fmt::format("sigmoid stack: slope must be finite and positive, got {}", slope));
  if (!std::isfinite(initial_a))
    throw InputError(fmt::format("sigmoid stack: initial_a must be finite, got {}", initial_a));
}

SigmoidStack::SigmoidStack(const Grid& grid, const SigmoidStackOptions& options) : grid_(grid), options_(options) {
  options_.validate();
  half_ = Grid{grid_.origin, grid_.step, symmetric_half_size(grid_, "the sigmoid stack")};
  const auto float64 = torch::TensorOptions().dtype(torch::kDouble);
  const int64_t K = options_.sigmoids;
  const double half_width = -grid_.origin;

  a_ = register_parameter("A", torch::full({}, options_.initial_a, float64));
  b_ = register_parameter("B", options_.seed ? torch::rand({K}, at::detail::createCPUGenerator(*options_.seed), float64)
                                             : torch::rand({K}, float64));
  f_ = register_parameter("F", -half_width + torch::arange(K, float64) * (half_width / static_cast<double>(K)));
}

torch::Tensor SigmoidStack::log_probabilities() {
  if (!options_.exact_fast) return forward_direct();
  if (!options_.fused) return forward_fast();
  torch::Tensor fused = forward_fused();
  return fused.defined() ? fused : forward_fast();
}

NoiseModel::Table SigmoidStack::log_probabilities_and_masses() {
  if (options_.exact_fast && options_.fused) {
    torch::Tensor p;
    torch::Tensor log_p = sigmoid_stack_log_probabilities_fused(grid_, a_, b_, f_, options_.slope, &centre_order_, &p);
    if (log_p.defined()) return {log_p, p};
  }
  return NoiseModel::log_probabilities_and_masses();
}

torch::Tensor SigmoidStack::forward_fused() {
  return sigmoid_stack_log_probabilities_fused(grid_, a_, b_, f_, options_.slope, &centre_order_);
}

torch::Tensor SigmoidStack::support_mask() const {
  return torch::ones({grid_.size}, torch::TensorOptions().dtype(torch::kBool).device(a_.device()));
}

torch::Tensor SigmoidStack::forward_fast() {
  return normalised(sigmoid_stack_log_profile_fast(half_, a_, b_, f_, options_.slope));
}

torch::Tensor SigmoidStack::forward_direct() {
  return normalised(sigmoid_stack_log_profile_direct(half_, a_, b_, f_, options_.slope));
}

torch::Tensor SigmoidStack::normalised(const torch::Tensor& log_half_profile) const {
  // f is increasing on x <= 0, but its evaluation (fast or direct) may step down by an ulp where f is flat
  // to rounding. The running maximum removes those steps (an identity in exact arithmetic, a change of at
  // most a few ulps otherwise; ties keep their own gradient), so p is non-increasing away from 0 bit for bit,
  // as the monotone accountant's hypothesis requires.
  const torch::Tensor log_f = mirror_half(std::get<0>(log_half_profile.cummax(0)), grid_);
  return log_f - torch::logsumexp(log_f, 0);
}

}  // namespace noiselearn
