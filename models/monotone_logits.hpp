#pragma once
// Monotone logits: a symmetric table that is non-increasing away from 0 by construction (the hypothesis of
// Sommer et al., Thm 15), with one free parameter per step:
//
//   log f(0) = c,   log f(x_{(k)}) = c − Σ_{i=1..k} softplus(d_i),   k = 1 .. m,
//
// x_{(k)} the k-th support point outwards from 0, mirrored to both sides; log p = log_softmax(log f). The
// support is the 2m + 1 points nearest 0 (2m + 2 on an even grid); points beyond have no parameter and
// log p = -inf exactly. softplus(d) = log(1 + e^d) ≥ 0, so every step outwards is a decrease; a flat step
// is d → −∞ (softplus(d) ≈ e^d).
#include <torch/torch.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/noise_model.hpp"

namespace noiselearn {

// The decrement a flat step of a table (p(x_{(k)}) == p(x_{(k-1)})) is initialised to: softplus must be
// inverted at a positive value. 1e-300 changes no log-probability above 1e-284 in magnitude (it is below
// their rounding), so tables are reproduced bit for bit; the price is that such a step starts at
// d = log(1e-300) ≈ −691 where dsoftplus/dd = 1e-300: it stays flat until the rest of the profile moves.
inline constexpr double kFlatStepDecrement = 1e-300;

struct MonotoneLogitsOptions {
  // Default profile on the whole grid: log f(x) = −x² / (2 σ²), a discrete Gaussian shape (every step a
  // strict decrease, so every d_i starts where its gradient is alive). σ = initial_sigma, or a third of the
  // grid's half-width when unset (p at the edge ≈ 1% of p(0)).
  std::optional<double> initial_sigma;

  // Throws InputError unless initial_sigma, when set, is finite and positive.
  void validate() const;
};

class MonotoneLogits : public NoiseModel {
 public:
  // The default profile (see MonotoneLogitsOptions). Throws InputError unless the grid is symmetric around 0.
  explicit MonotoneLogits(const Grid& grid, const MonotoneLogitsOptions& options = {});

  // Starts from `table`: its support (where p > 0) must be a symmetric interval around 0 (else InputError).
  // A symmetric table that is non-increasing away from 0 is reproduced exactly (to rounding; flat steps see
  // kFlatStepDecrement). Any other table is first projected: mirror pairs averaged (symmetrised_half), then
  // the running minimum from the centre outwards (the greatest non-increasing profile below the table, so no
  // ratio p(x) / p(0) grows), renormalised by the model.
  static std::shared_ptr<MonotoneLogits> from_table(const NoiseTable& table);

  const Grid& grid() const override { return grid_; }
  SupportKind support_kind() const override { return SupportKind::kSymmetric; }
  std::string model_name() const override { return "monotone-logits"; }
  torch::Tensor log_probabilities() override;
  torch::Tensor support_mask() const override { return support_mask_; }

  // c: log f at the centre (scalar); d [m]: the i-th step outwards lowers log f by softplus(d_i).
  const torch::Tensor& log_centre() const { return log_centre_; }
  const torch::Tensor& decrements() const { return decrements_; }

 private:
  // From the log profile outwards from the centre (log f(x_{(0)}), ..., log f(x_{(m)})), non-increasing;
  // its length fixes the support.
  MonotoneLogits(const Grid& grid, const std::vector<double>& outward_log_profile);

  Grid grid_;
  int64_t half_size_;
  torch::Tensor log_centre_, decrements_;
  torch::Tensor support_mask_;  // buffer: [grid.size], bool
};

}  // namespace noiselearn
