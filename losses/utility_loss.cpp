#include "losses/utility_loss.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"

namespace noiselearn {

UtilityLossKind parse_utility_loss_kind(const std::string& text) {
  if (text == "l1") return UtilityLossKind::kL1;
  if (text == "l2") return UtilityLossKind::kL2;
  if (text == "second-moment") return UtilityLossKind::kSecondMoment;
  if (text == "tail-probability") return UtilityLossKind::kTailProbability;
  throw InputError(fmt::format("unknown utility '{}' (valid: l1, l2, second-moment, tail-probability)", text));
}

std::string to_string(UtilityLossKind kind) {
  switch (kind) {
    case UtilityLossKind::kL1: return "l1";
    case UtilityLossKind::kL2: return "l2";
    case UtilityLossKind::kSecondMoment: return "second-moment";
    case UtilityLossKind::kTailProbability: return "tail-probability";
  }
  return "?";
}

torch::Tensor utility_loss(const torch::Tensor& log_p, const Grid& grid, const UtilityLossOptions& options) {
  const auto tensor_options = log_p.options();
  const torch::Tensor x = grid.origin + grid.step * torch::arange(grid.size, tensor_options);
  const torch::Tensor p = torch::exp(log_p);
  switch (options.kind) {
    case UtilityLossKind::kL1: return (x.abs() * p).sum();
    case UtilityLossKind::kL2: return torch::sqrt((x * x * p).sum());
    case UtilityLossKind::kSecondMoment: return (x * x * p).sum();
    case UtilityLossKind::kTailProbability: {
      const torch::Tensor outside = x.abs() > options.tail_threshold + 1e-9 * grid.step;
      return torch::where(outside, p, torch::zeros_like(p)).sum();
    }
  }
  return torch::Tensor();
}

}  // namespace noiselearn
