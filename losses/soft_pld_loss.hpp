#pragma once
// Soft privacy-loss-distribution delta (ours): the quantity the certified accountant computes, made
// differentiable, so that the optimiser sees what will be certified, with true gradients.
//
// For one direction first||second: each outcome with a finite privacy loss L = log first - log second and
// mass a = first is split linearly between the two neighbouring points of a fine loss grid
// (u = L / step, k = floor(u): a (k + 1 - u) at k and a (u - k) at k + 1), which is differentiable in both
// the mass and the loss value (it keeps the mass and the mean loss). Distinguishing events (second = 0) form
// the infinity mass omega. The n-fold composition is a square-and-multiply of FFT convolutions (no
// wrap-around), with tails of at most tail_mass per side cut after each step (the top tail joins the
// infinity mass, as in the certified upper bound). Then the exact formula
//   delta(eps) = omega_n + sum_{l_k > eps} (1 - e^{eps - l_k}) pmf_n(l_k)
// is applied. Its value agrees with the certified accountant within the discretisation error (tested).
#include "losses/privacy_loss.hpp"
#include "losses/soft_pld.hpp"

namespace noiselearn {

struct SoftPldLossOptions {
  double epsilon = 0.3;
  int64_t compositions = 1;
  double loss_step = 1e-3;                // nats
  double tail_mass = 1e-15;               // per side and step
  int64_t max_points = int64_t{1} << 20;  // a wider single-release grid doubles the step (and says so once)
  // true: the single release and the composition by the fused functions of soft_pld_fused.hpp (float64 CPU);
  // false: by tensor operations, the reference (the same values, the gradients to rounding).
  bool fused = true;
  void validate() const;  // InputError naming the field
};

class SoftPldLoss : public PrivacyLoss {
 public:
  explicit SoftPldLoss(SoftPldLossOptions options);
  std::string loss_name() const override { return "soft-pld"; }
  torch::Tensor direction_delta(const LogPair& pair, int direction) override;

 private:
  SoftPldLossOptions options_;
};

}  // namespace noiselearn
