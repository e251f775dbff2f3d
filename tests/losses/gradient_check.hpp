#pragma once
// Central finite differences of a scalar function of a float64 tensor, for gradient checks.
#include <torch/torch.h>

#include <functional>

namespace noiselearn::testing {

inline torch::Tensor finite_difference_gradient(const std::function<double(const torch::Tensor&)>& f,
                                                const torch::Tensor& x, double h) {
  torch::Tensor gradient = torch::zeros_like(x);
  torch::Tensor point = x.clone();
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double original = point[i].item<double>();
    point[i] = original + h;
    const double up = f(point);
    point[i] = original - h;
    const double down = f(point);
    point[i] = original;
    gradient[i] = (up - down) / (2.0 * h);
  }
  return gradient;
}

}  // namespace noiselearn::testing
