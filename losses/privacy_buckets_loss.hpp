#pragma once
// The PrivacyBuckets training losses l^ADP and l^PDP of Sommer et al. (sections 3.4.2 and 3.4.3), kept to
// reproduce the paper. For one direction first||second:
//   1. bucket the single release (privacy_buckets_composition.hpp): the outcomes with first, second > 0 go to
//      bucket ceil(L / ln f), L = ln(first / second); the distinguishing events (second = 0) to infinity;
//   2. compose n times (square-and-multiply, any n >= 1);
//   3. ADP: delta = buckets_n(inf) + sum_{j >= eps / ln f} (1 - e^{eps - j ln f}) buckets_n(j),
//      PDP: delta = buckets_n(inf) + sum_{j >= eps / ln f} buckets_n(j).
//      The paper prints the ADP weight as 1 - e^{j ln f - eps}, which is negative for j ln f > eps; the weight
//      of delta = E_first[(1 - e^{eps - L})_+] is 1 - e^{eps - L} (the authors' code computes it so, with eps
//      rounded down to a bucket edge).
//
// Biased upwards: every loss is rounded up to a bucket edge, about n ln f / 2 nats after n releases, so delta
// grows by about exp(n ln f / 2 |d ln delta / d eps|) - 1 (experiments/errata.md, E-Sommer-3, quotes about +10%
// at n = 16 and +25% at n = 128 with 2h = 1000; the bias of the automatic factor, see log_factor, is in
// tests/benchmarks/README.md, "PrivacyBuckets' bucket factor"). The surrogate gradients
// (privacy_buckets_surrogates.hpp) are heuristics. A training surrogate only; the certified accountant gives
// the guarantee.
//
// Where the paper's implementation needs the surrogates (our reading of section 3.4.2, "Implementation"):
//   - ceil computes each outcome's bucket index x_i = ceil(L_i / ln f) (straight-through derivative 1);
//   - equal assigns mass to the regular buckets: buckets(j) = sum_i first_i equal(x_i, j), j in -h+1 .. h;
//   - smallerThan confines the indices to [-h, h]: buckets(-h) = sum_i first_i smallerThan(x_i, -h + 1) and
//     buckets(inf) = omega + sum_i first_i smallerThan(h, x_i). It is the only comparison whose arguments depend
//     on the noise, hence the only place where its sigmoid forward and derivative mean anything. The threshold
//     j >= eps / ln f compares constants (bucket numbers with eps), so it stays an exact indicator: a sigmoid
//     there would have no gradient to give and would under-count the buckets just above eps.
//   Consequences of the soft forward of smallerThan, kept as in the paper: an outcome in bucket -h+1 also puts
//   sigmoid(-2.5) = 0.076 of its mass into bucket -h, one in bucket h also 0.076 into infinity, and one in bucket
//   h + 1 only sigmoid(2.5) = 0.924 (h + 2: 0.9994) into infinity; the total mass is not exactly 1.
//   The masses first_i enter linearly and get their true gradient.
#include <cstdint>

#include "losses/privacy_buckets_composition.hpp"
#include "losses/privacy_loss.hpp"

namespace noiselearn {

struct PrivacyBucketsOptions {
  enum class Kind { kAdp, kPdp };

  double epsilon = 0.3;
  int64_t compositions = 1;  // n >= 1
  int64_t buckets = 1000;    // 2h, even; the paper trains with 2h = 1000
  // f > 1, or 0: automatic (see log_factor). The paper trains with f = 1.000001, for which 2h = 1000 buckets
  // cover only |L| <= 5e-4 nats: every realistic loss lands in the infinity bucket (delta ~ 1 after a few
  // compositions, and the gradients nearly vanish). Kept to reproduce that setting.
  double factor = 0.0;
  Kind kind = Kind::kAdp;
  // true: the single release is bucketed by one fused function (privacy_buckets_fused.hpp) on float64 CPU
  // tensors; false: by tensor operations, the reference (the same values and gradients to rounding).
  bool fused = true;

  // Throws InputError naming the offending field.
  void validate() const;
};

class PrivacyBucketsLoss : public PrivacyLoss {
 public:
  explicit PrivacyBucketsLoss(PrivacyBucketsOptions options);
  std::string loss_name() const override;  // "privacy-buckets-adp" or "privacy-buckets-pdp"
  torch::Tensor direction_delta(const LogPair& pair, int direction) override;

  // ln f for a pair. A literal factor gives ln f. The automatic factor (factor = 0) makes the buckets reach
  //   h ln f = max(eps, |n mu|) + 2 sqrt(n) sigma,
  // mu and sigma the mean and standard deviation of the single-release finite loss under `first` (no gradient),
  // so n mu and sqrt(n) sigma those of the n-fold composed loss. Why:
  //   - the rounding bias grows like n ln f / 2 nats, so the range should be as small as it can be;
  //   - beyond h ln f each composition confines the loss (above: to infinity, counted with weight 1 instead of
  //     1 - e^{eps - L}; below: rounded up to -h ln f); reaching 2 standard deviations past eps (or past the
  //     mean when the mean is above eps) leaves little mass to that, and it is still counted pessimistically;
  //   - against the certified accountant (Gaussian, Laplace, truncated Gaussian pairs, n in {1, 16, 128}, eps in
  //     {0.3, 1, 2}, 2h = 1000) it has the smallest bias in most cases, below h ln f = max(4 eps, |n mu| +
  //     4 sqrt(n) sigma) and the authors' code (which squares f = 1.000001 until eps lies within the first h/4
  //     buckets, i.e. h ln f in [4 eps, 8 eps)); the figures are in tests/benchmarks/README.md, "PrivacyBuckets'
  //     bucket factor".
  // When the range vanishes (eps = 0 and identical distributions) every loss is 0 and h ln f = 1.
  // The automatic factor follows the pair, so it changes slowly during training.
  double log_factor(const LogPair& pair) const;
  // The same from e^{log first} (no gradient), computed by the caller (the fused path shares it).
  double log_factor(const LogPair& pair, const torch::Tensor& first) const;

  // The single release in buckets of width log_factor, with the surrogate gradients.
  PrivacyBuckets single_release_buckets(const LogPair& pair, double log_factor) const;
  PrivacyBuckets single_release_buckets(const LogPair& pair, const torch::Tensor& first, double log_factor) const;

  // delta of n-fold composed buckets (ADP or PDP formula above).
  torch::Tensor delta_of(const PrivacyBuckets& composed, double log_factor) const;

  const PrivacyBucketsOptions& options() const { return options_; }

 private:
  PrivacyBucketsOptions options_;
};

}  // namespace noiselearn
