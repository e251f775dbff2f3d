#pragma once
// A discretised privacy-loss distribution (PLD) of one direction A||B of a dominating pair.
//
// The privacy loss of an outcome o is L(o) = ln(A(o)/B(o)), distributed according to A; outcomes with
// A(o) > 0 = B(o) have infinite loss (distinguishing events, Sommer et al. Def. 3-4) and are kept as a
// separate scalar, never clamped away. For n-fold composition the losses add, so the PLD of the composition
// is the n-fold convolution. Everything about (epsilon, delta) follows from the hockey-stick formula
//
//   delta(eps) = omega_inf + sum_{l > eps} (1 - e^{eps - l}) pmf(l)
//
// (omega_inf is the infinity mass; for an n-fold composition of a single release with omega, omega_inf =
// 1 - (1 - omega)^n, which the composition keeps track of exactly).
//
// A PLD here lives on the uniform loss grid {k * loss_step} and is either
//   - pessimistic (BoundKind::kUpper): its delta(eps) is >= the true delta(eps) of the pair for every eps
//     and under every composition, or
//   - optimistic  (BoundKind::kLower): <= the true delta(eps) for every eps and composition.
// How that is achieved is in loss_discretisation.hpp; how it survives composition in composition.hpp.
#include <cstdint>
#include <string>
#include <vector>

namespace noiselearn {

enum class BoundKind { kUpper, kLower };
std::string to_string(BoundKind bound);

// Exponential tilting (composition.hpp): with tilt lambda > 0 and reference loss r, the error vector e of a PLD's
// masses is also bounded in the tilted norm, sum_i |e_i| e^{lambda (l_i - r)} <= error, and the error of the infinity
// mass separately by infinity_error. For delta(eps) only losses above eps count, where e^{lambda (l - r)} >=
// e^{lambda (eps - r)}, so the absolute allowance is
//   min(numerical_error, infinity_error + error e^{-lambda (eps - r)}):
// the FFT's absolute error, relative to the tilted distribution, becomes relative to the tail that delta depends on
// (e^{lambda (r - eps)} is the Chernoff bound on P[L >= eps]). lambda = 0: no tilted norm.
struct TiltedNorm {
  double lambda = 0.0;
  double reference = 0.0;
  double error = 0.0;
  double infinity_error = 0.0;
};

struct PrivacyLossDistribution {
  BoundKind bound = BoundKind::kUpper;
  double loss_step = 1e-4;     // grid spacing of the privacy loss
  int64_t first_index = 0;     // masses[i] is the A-probability of the loss (first_index + i) * loss_step
  std::vector<double> masses;  // finite part
  double infinity_mass = 0.0;  // A-probability of an infinite loss
  // Bookkeeping that the certificate reports; both enter the delta queries so the bounds stay rigorous.
  // Floating-point error of the masses (and the infinity mass) against the exact discretised distribution,
  // in two parts: computed = exact (1 + theta) + e with |theta_i| <= relative_error entrywise and
  // ||e||_1 <= numerical_error. Direct summation of non-negative terms errs relatively (harmless under
  // composition: relative errors multiply); the FFT errs absolutely (bounded in l1).
  double numerical_error = 0.0;
  double relative_error = 0.0;
  TiltedNorm tilt;
  double truncated_mass = 0.0;  // tail mass moved to +inf (upper bound) or dropped (lower bound)
  // Losses that were within a hair of a grid point were put on it (loss_discretisation.cpp), some of them a little
  // in the loosening direction (down for an upper bound, up for a lower one), each by at most this much (nats) per
  // release; composition adds the shifts. The true distribution is then bounded by this PLD with every loss moved
  // back by loss_shift, i.e. its delta curve moved in eps: upper delta(eps) = grid delta(eps - loss_shift), lower
  // delta(eps) = grid delta(eps + loss_shift), and eps(delta) moved by +- loss_shift. All queries below apply it.
  double loss_shift = 0.0;
  int64_t compositions = 1;

  double loss(size_t i) const { return static_cast<double>(first_index + static_cast<int64_t>(i)) * loss_step; }
  // The absolute floating-point allowance of delta(eps) (see above).
  double absolute_allowance(double epsilon) const;
  int64_t last_index() const { return first_index + static_cast<int64_t>(masses.size()) - 1; }
  double finite_mass() const;

  // delta(eps) of this PLD, including the floating-point allowances in the bound's direction (upper:
  // (computed + allowance) / (1 - relative_error); lower: (computed - allowance) / (1 + relative_error)), where
  // `computed` carries a relative (N + 16) u for the rounding of the sum itself. Clamped to [0, 1].
  double delta_for_epsilon(double epsilon) const;
  // The same for many epsilons at once (any order): one pass over the masses.
  std::vector<double> delta_for_epsilons(const std::vector<double>& epsilons) const;
  // The smallest eps with delta(eps) <= delta, by exact inversion of the piecewise function
  // delta(eps) = P_j - e^{eps - l_j} Q_j on [l_j, l_{j+1}); +inf if no eps achieves it (delta below the
  // infinity mass). May be negative; callers that want eps >= 0 clamp. With a tilted allowance (which falls
  // with eps) an upper bound is found by bisection between two constant-allowance inversions, and a lower bound
  // by raising a constant-allowance inversion while it stays valid; both stay on the safe side.
  double epsilon_for_delta(double delta) const;
};

}  // namespace noiselearn
