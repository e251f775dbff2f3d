#pragma once
// Utility losses of a table, differentiable in log p (Sommer et al., eq. 2): L1 = sum |x| p (mean absolute
// error), L2 = (sum x^2 p)^{1/2} (root mean square), the second moment sum x^2 p, and the tail probability
// Pr[|e| > tau]. As in eq. (2), the cost is evaluated at the grid points (the table's outputs).
#include <torch/torch.h>

#include "core/grid.hpp"
#include "core/utility.hpp"

namespace noiselearn {

// The utility of log p on `grid` (tensor of shape [grid.size]); the differentiable twin of core/utility.hpp's
// utility(table, specification), equal to it on every table.
// p (optional): e^{log p} (detached) when the caller has it (NoiseModel::log_probabilities_and_masses), used instead
// of exponentiating on the fused path.
torch::Tensor utility_loss(const torch::Tensor& log_p, const Grid& grid, const UtilitySpecification& specification,
                           const torch::Tensor& p = {});

}  // namespace noiselearn
