#include "losses/utility_loss.hpp"


namespace noiselearn {

torch::Tensor utility_loss(const torch::Tensor& log_p, const Grid& grid, const UtilitySpecification& options) {
  const auto tensor_options = log_p.options();
  const torch::Tensor x = grid.origin + grid.step * torch::arange(grid.size, tensor_options);
  const torch::Tensor p = torch::exp(log_p);
  switch (options.kind) {
    case UtilityKind::kL1: return (x.abs() * p).sum();
    case UtilityKind::kL2: return torch::sqrt((x * x * p).sum());
    case UtilityKind::kSecondMoment: return (x * x * p).sum();
    case UtilityKind::kTailProbability: {
      const torch::Tensor outside = x.abs() > options.tail_threshold + 1e-9 * grid.step;
      return torch::where(outside, p, torch::zeros_like(p)).sum();
    }
  }
  return torch::Tensor();
}

}  // namespace noiselearn
