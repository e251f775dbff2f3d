#pragma once
// The symmetric families with geometric tails of Gilani et al. (Defs 3.3 and 3.4): a window of N + 1
// probabilities p_0 .. p_N, mirrored (P(-i) = P(i)), continued beyond the window by a geometric tail,
//   P(i) = p_|i|               for |i| <= N,
//   P(i) = p_N r^(|i| - N)     for |i| >= N      (bin N has mass p_N, bin N + k has p_N r^k; eq. 15, 17),
// so that the infinitely many outcomes are described by finitely many numbers and a Renyi divergence of the
// family against its shift has a closed form (Thm 3.6). Continuous: bin i is the interval
// ((i - 1/2) Delta, (i + 1/2) Delta) with constant density P(i) / Delta. Discrete: bin i is the integer i
// (Delta = 1).
//
// Both the normalisation (eq. 16/18) and an expected cost (Prop. 3.5, eq. 19) are LINEAR in p; the
// coefficient vectors below are what the preconditioned projected gradient of Alg. 3 keeps fixed.
#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/noise_table.hpp"

namespace noiselearn {

enum class FamilyDomain { kContinuous, kDiscrete };
std::string to_string(FamilyDomain domain);
// "continuous" or "discrete"; InputError listing both otherwise.
FamilyDomain parse_family_domain(const std::string& text);

struct GeometricTailShape {
  FamilyDomain domain = FamilyDomain::kContinuous;
  int64_t window = 2000;    // N: the window holds p_0 .. p_N
  double ratio = 0.9999;    // r: the tail's decay per bin
  double bin_width = 0.05;  // Delta (units of the noise); 1 for the discrete family
  // InputError naming model.window (N >= 1), model.tail_ratio (0 < r < 1), model.bin_width (finite, > 0,
  // and exactly 1 for the discrete family).
  void validate() const;
};

// The expected cost a family is constrained by (Prop. 3.5): c(x) = x^2, |x|, or the indicator of |x| > tau.
enum class CostKind { kSquare, kAbsolute, kExceedance };
std::string to_string(CostKind kind);
// "square", "absolute", "exceedance"; InputError listing them otherwise.
CostKind parse_cost_kind(const std::string& text);

struct CostSpecification {
  CostKind kind = CostKind::kSquare;
  double threshold = 0.0;  // tau of the exceedance cost (units of the noise); unused otherwise
  void validate() const;   // InputError naming model.cost_threshold (finite, >= 0) for the exceedance cost
};

// c_0 .. c_N with E[c(Z)] = sum_k c_k p_k exactly (Prop. 3.5, eq. 19-21): c_0 = A_0, c_i = 2 A_i for
// 0 < i < N, c_N = 2 sum_{i >= N} r^(i - N) A_i, where A_i is the average of c over bin i (eq. 20, 44) for the
// continuous family and c(i) for the discrete one. The tail series are summed in closed form.
std::vector<double> cost_coefficients(const GeometricTailShape& shape, const CostSpecification& cost);

// 1, 2, ..., 2, 2 / (1 - r): sum_k n_k p_k is the total mass (eq. 16, 18).
std::vector<double> normalisation_coefficients(const GeometricTailShape& shape);

// S_N = sum_{i >= N} r^(i - N) i^2 in closed form (eq. 50).
double geometric_square_series(int64_t window, double ratio);

// Alg. 2: the family's closest match to a Gaussian of standard deviation sigma. For a variance parameter C,
// p_i is the mass of N(0, C) on bin i (i < N) and p_N = (1 - r) times its mass beyond bin N - 1 (so the
// family is normalised exactly); C is bisected on [0, 2 sigma^2] until the family's variance (eq. 21, with the
// Delta^2 / 12 of the bins for the continuous family) equals sigma^2 to 1e-12 relative. The masses are
// computed as log(Phi(b) - Phi(a)) in log space (erratum E-Gilani-4 of experiments/errata.md: naive CDF
// differences vanish beyond ~8.3 sigma,
// and a zero makes the Renyi objective infinite).
struct GaussianInitialisation {
  std::vector<double> log_probabilities;  // log p_0 .. log p_N
  double variance_parameter = 0.0;        // C-hat of Alg. 2
  double variance = 0.0;                  // the family's variance at C-hat
};
// InputError naming sigma if it is not finite and > 0 or if no C in (0, 2 sigma^2] reaches sigma^2 (e.g.
// sigma^2 < Delta^2 / 12 for the continuous family).
GaussianInitialisation gaussian_initialisation(const GeometricTailShape& shape, double sigma);

// log P(i) of the family for any integer i, from the window's log masses (no gradient).
double family_log_probability(const GeometricTailShape& shape, const std::vector<double>& log_window, int64_t i);

// The family as a LibTorch module: one float64 parameter theta = log p (shape [N + 1]). The optimiser keeps
// the normalisation as a constraint (Alg. 3), so theta is not renormalised here; and p^(1 - alpha) is never
// formed directly (alpha theta + (1 - alpha) theta' in log space instead), since p^(1 - alpha) overflows for
// the tiny tail masses.
class GeometricTailFamily : public torch::nn::Module {
 public:
  // Validates the shape; `log_probabilities` must have N + 1 finite entries (InputError otherwise).
  GeometricTailFamily(const GeometricTailShape& shape, const std::vector<double>& log_probabilities);
  // Alg. 2 initialisation with standard deviation sigma.
  static std::shared_ptr<GeometricTailFamily> gaussian(const GeometricTailShape& shape, double sigma);

  const GeometricTailShape& shape() const { return shape_; }
  // theta: log p_0 .. log p_N, differentiable.
  torch::Tensor log_probabilities() { return theta_; }
  const torch::Tensor& theta() const { return theta_; }
  std::vector<double> log_window() const;

  // E[c(Z)] and the total mass, sum of coefficients times p with Neumaier compensation.
  double cost(const CostSpecification& cost) const;
  double normalisation() const;

  // The window on the grid -N Delta .. N Delta (2N + 1 points; grid point i Delta has P(|i|)) with geometric
  // tails of ratio r beyond both ends. Validated as a symmetric NoiseTable (sum to 1 including the tails).
  NoiseTable table(TableProvenance provenance = {}) const;

 private:
  GeometricTailShape shape_;
  torch::Tensor theta_;
};

}  // namespace noiselearn
