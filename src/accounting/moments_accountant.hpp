#pragma once
// The Extended Moments Accountant of Sommer et al. (Prop. 17, Thm 19), as a comparison (not a certificate):
// for one direction A||B of a pair,
//   delta(eps) = 1 - (1 - omega)^n + min_{lambda > 0} exp(n Gamma_lambda(A||B) - lambda eps),
//   Gamma_lambda(A||B) = log sum_{o: A(o), B(o) > 0} A(o) (A(o)/B(o))^lambda,
// where omega is the probability under A of a distinguishing event (B(o) = 0). Unlike Renyi DP it stays
// finite for truncated noise: the distinguishing events are paid for separately. The guarantee is the maximum
// over both directions (and over all pairs of a family).
#include <cstdint>
#include <vector>

#include "core/dominating_pair.hpp"

namespace noiselearn {

// log sum over the common support of first^(1 + lambda) second^(-lambda), in log space.
double moments_log_gamma(const std::vector<double>& first, const std::vector<double>& second, double lambda);

struct MomentsBound {
  double value;   // delta (for a given eps) or eps (for a given delta); +inf when unattainable
  double lambda;  // the moment order that attains it (NaN if none)
};

// Minimised over lambda on a log-spaced grid (1e-3 .. 1e4) with golden-section refinement; each lambda gives a
// valid bound, so the reported value is always one that was evaluated.
MomentsBound moments_accountant_delta(const std::vector<DominatingPair>& pairs, int64_t n, double epsilon);
MomentsBound moments_accountant_epsilon(const std::vector<DominatingPair>& pairs, int64_t n, double delta);

}  // namespace noiselearn
