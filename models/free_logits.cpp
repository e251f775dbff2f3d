#include "models/free_logits.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "models/symmetric_half.hpp"

namespace noiselearn {

namespace {

int64_t parameterised_points(const Grid& grid, const FreeLogitsOptions& options) {
  if (options.symmetric) return symmetric_half_size(grid, "symmetric free logits");
  grid.validate();
  return grid.size;
}

SupportKind kind_of_support(const Grid& grid, const FreeLogitsOptions& options, const torch::Tensor& mask) {
  if (options.symmetric) return SupportKind::kSymmetric;
  // The tolerance of NoiseTable: a point within 1e-9 steps of 0 counts as 0.
  const double below_zero = -kGridRelativeTolerance * grid.step;
  const auto* inside = mask.data_ptr<bool>();
  for (int64_t i = 0; i < grid.size; ++i)
    if (inside[i] && grid.x(i) < below_zero) return SupportKind::kGeneral;
  return SupportKind::kOneSided;
}

}  // namespace

FreeLogits::FreeLogits(const Grid& grid, const FreeLogitsOptions& options)
    : FreeLogits(grid, options, torch::zeros({parameterised_points(grid, options)}, torch::kDouble)) {}

FreeLogits::FreeLogits(const Grid& grid, const FreeLogitsOptions& options, const torch::Tensor& log_weights)
    : grid_(grid), options_(options), parameterised_points_(parameterised_points(grid, options)) {
  const torch::Tensor support = log_weights > -std::numeric_limits<double>::infinity();
  support_indices_ = register_buffer("support_indices", support.nonzero().flatten());
  logits_ = register_parameter("logits", log_weights.index_select(0, support_indices_).clone());
  support_mask_ = register_buffer("support_mask", options_.symmetric ? mirror_half(support, grid_) : support);
  kind_ = kind_of_support(grid_, options_, support_mask_);
}

std::shared_ptr<FreeLogits> FreeLogits::from_table(const NoiseTable& table, const FreeLogitsOptions& options) {
  if (!options.symmetric)
    return std::shared_ptr<FreeLogits>(new FreeLogits(table.grid(), options, log_probabilities_of(table)));
  std::vector<double> log_q = symmetrised_half(table, "symmetric free logits");
  for (double& v : log_q) v = v > 0.0 ? std::log(v) : -std::numeric_limits<double>::infinity();
  return std::shared_ptr<FreeLogits>(new FreeLogits(table.grid(), options, torch::tensor(log_q, torch::kDouble)));
}

torch::Tensor FreeLogits::log_probabilities() {
  // Points outside the support hold -inf, a constant: no parameter, p = 0 exactly, and log_softmax gives
  // them exp(-inf) = 0 weight in the normalisation and its gradient.
  const torch::Tensor log_weights =
      torch::full({parameterised_points_}, -std::numeric_limits<double>::infinity(), logits_.options())
          .scatter(0, support_indices_, logits_);
  return torch::log_softmax(options_.symmetric ? mirror_half(log_weights, grid_) : log_weights, 0);
}

}  // namespace noiselearn
