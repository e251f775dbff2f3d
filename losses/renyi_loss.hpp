#pragma once
// The Renyi DP and Hybrid Renyi DP training losses of the Adam trainer (the moments of renyi_objective.hpp as a
// differentiable delta surrogate on any table's pair).
#include <cstdint>
#include <string>

#include <torch/torch.h>

#include "losses/privacy_loss.hpp"
#include "losses/renyi_objective.hpp"

namespace noiselearn {

// Renyi DP as a differentiable delta surrogate for the Adam trainer, on any table's pair. For one direction,
// with G = log sum over the outcomes with a finite loss of first^alpha second^(1 - alpha):
//   Mironov:  log delta_R = (alpha - 1)(n D_alpha - epsilon) = n G - (alpha - 1) epsilon,
//   Balle:    log delta_R = n G - (alpha - 1) epsilon + (alpha - 1) log(1 - 1/alpha) - log alpha,
//   delta = 1 - (1 - omega)^n + delta_R,
// where omega is the mass of the distinguishing events (second = 0). Without such events this is the RDP
// bound itself; with them RDP is infinite and the omega term (the Extended Moments Accountant's treatment,
// Sommer et al. Prop. 17) keeps the surrogate finite and NaN-free. delta_R uses exp(t) for t <= 0 and 1 + t
// above, like the moments accountant loss, so it never overflows.
//
// alpha per direction: trainable as log(alpha - 1) (parameters "log_alpha_minus_one_forward/backward"), or
// (alpha_update = kNewton) a buffer moved by one guarded Newton step on log delta_R before every evaluation
// (log delta_R is convex in alpha since G is: d/dalpha = n G' - epsilon [+ log(1 - 1/alpha)],
// d2/dalpha2 = n G'' [+ 1 / (alpha (alpha - 1))]).
enum class AlphaUpdate { kGradient, kNewton };
std::string to_string(AlphaUpdate update);
AlphaUpdate parse_alpha_update(const std::string& text);  // "gradient", "newton"

// hybrid_renyi = true is Xiao et al.'s Hybrid Renyi DP (Def. 7, Thm 2, eq. 24) read at a fixed epsilon: the degenerate
// mass is paid by the union bound n omega instead of 1 - (1 - omega)^n, and the conversion is Mironov's, so
//   delta = n omega + exp(n G - (alpha - 1) epsilon)
// is exactly eq. 24's delta = T delta_p + delta' solved for delta at the given epsilon ("loss.kind: hrdp" with Adam).
struct RenyiLossOptions {
  double epsilon = 1.0;
  int64_t compositions = 1;
  double initial_alpha = 10.0;
  RdpConversion conversion = RdpConversion::kMironov;
  AlphaUpdate alpha_update = AlphaUpdate::kGradient;
  bool hybrid_renyi = false;  // last, so that aggregate initialisers {epsilon, n, alpha, ..} keep their meaning
  void validate() const;      // InputError naming the field
};

class RenyiLoss : public PrivacyLoss {
 public:
  explicit RenyiLoss(RenyiLossOptions options);
  std::string loss_name() const override { return options_.hybrid_renyi ? "hrdp" : "renyi"; }
  torch::Tensor direction_delta(const LogPair& pair, int direction) override;
  double alpha(int direction) const;

 private:
  RenyiLossOptions options_;
  torch::Tensor log_alpha_minus_one_[2];
};

}  // namespace noiselearn
