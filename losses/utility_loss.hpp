#pragma once
// Utility losses of a table, differentiable in log p (Sommer et al., eq. 2): L1 = sum |x| p (mean absolute
// error), L2 = (sum x^2 p)^{1/2} (root mean square), the second moment sum x^2 p, and the tail probability
// Pr[|e| > tau]. As in eq. (2), the cost is evaluated at the grid points (the table's outputs).
#include <torch/torch.h>

#include <string>

#include "core/grid.hpp"

namespace noiselearn {

enum class UtilityLossKind { kL1, kL2, kSecondMoment, kTailProbability };
UtilityLossKind parse_utility_loss_kind(const std::string& text);  // l1, l2, second-moment, tail-probability
std::string to_string(UtilityLossKind kind);

struct UtilityLossOptions {
  UtilityLossKind kind = UtilityLossKind::kL1;
  double tail_threshold = 1.0;  // tau of the tail probability (units of x)
};

// The utility loss of log p on `grid` (tensor of shape [grid.size]).
torch::Tensor utility_loss(const torch::Tensor& log_p, const Grid& grid, const UtilityLossOptions& options);

}  // namespace noiselearn
