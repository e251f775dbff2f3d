#pragma once
// Adam (Kingma and Ba, Algorithm 1; torch::optim::Adam's update) with one pass per parameter tensor.
//
// torch's Adam updates each parameter by eight tensor operations (m <- beta1 m + (1 - beta1) g; v <- beta2 v +
// (1 - beta2) g^2; denominator sqrt(v) / sqrt(1 - beta2^t) + eps; p <- p - lr / (1 - beta1^t) m / denominator), each
// a pass over the 10,000 centres or weights of a sigmoid stack and a dispatch. FusedAdam does the same arithmetic per
// element in one loop, on float64 CPU contiguous parameters without amsgrad or weight decay; anything else goes to
// torch's step. The state (step, exp_avg, exp_avg_sq) is torch's, so checkpoints are the same archives either way.
// The results agree with torch's to rounding: its vectorised kernels may fuse a multiply and an add.
//
// clear_gradients() drops the gradients instead of zeroing them (torch's zero_grad), so that backward stores the new
// ones without an addition into zeros; a parameter that had a gradient and gets none in an epoch is then updated as
// with a zero gradient, as after zero_grad (its moments decay and it moves by them).
#include <torch/torch.h>

#include <vector>

namespace noiselearn {

class FusedAdam : public torch::optim::Adam {
 public:
  FusedAdam(std::vector<torch::Tensor> parameters, torch::optim::AdamOptions options);
  torch::Tensor step(LossClosure closure = nullptr) override;
  void clear_gradients();

 private:
  std::vector<bool> had_gradient_;  // per parameter of the (single) group: a gradient in an earlier epoch
};

}  // namespace noiselearn
