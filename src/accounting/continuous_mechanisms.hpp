#pragma once
// Certified bounds for the continuous Gaussian and Laplace mechanisms (real-valued noise, any real query
// difference |d| <= s): the references the Rényi-DP families are compared with (Gilani et al., Fig. 1: the
// Gaussian and the Laplace of the same variance). They are not tables on a grid, so they enter the accountant
// as privacy-loss distributions (the accountant consumes single-release PLD bounds, whatever made them).
//
// Both noises are symmetric and log-concave, so the worst difference is |d| = s (the loss of a smaller shift is
// a post-processing: Sommer et al., Thm 15, holds for every symmetric log-concave density), and A||B has the same
// privacy-loss distribution as B||A. The privacy loss of one release under A, L = ln(A(x)/B(x)), is
//   Gaussian N(0, sigma^2) vs N(s, sigma^2): L = (s^2 - 2 s x) / (2 sigma^2) ~ N(mu, 2 mu), mu = s^2 / (2 sigma^2);
//   Laplace(b) vs Laplace(s, b): L = +s/b for x <= 0 (mass 1/2), -s/b for x >= s (mass e^(-s/b) / 2), and
//   (s - 2x)/b in between (density e^(-x/b) / (2b)).
// The continuous part is cut into intervals of loss width at most loss_step / 8; an upper bound puts each
// interval's mass at its largest loss, a lower bound at its smallest (stochastically larger / smaller: delta grows
// / shrinks for every eps and every composition); then both are discretised as any other bound.
#include <cstdint>

#include "accounting/accountant_options.hpp"
#include "accounting/pair_accountant.hpp"

namespace noiselearn {

// One release of the Gaussian mechanism with standard deviation sigma and sensitivity s, as single-release
// bounds (compose with compose_bounds).
PairBounds gaussian_mechanism_bounds(double sigma, double sensitivity, const AccountantOptions& options);

// One release of the Laplace mechanism with scale b (standard deviation b sqrt 2) and sensitivity s.
PairBounds laplace_mechanism_bounds(double scale, double sensitivity, const AccountantOptions& options);

// The exact delta(eps) of n releases of the Gaussian mechanism (Balle and Wang 2018, Thm 8: n releases with
// sensitivity s are one release with sensitivity s sqrt(n)):
//   delta = Phi(-eps/m + m/2) - e^eps Phi(-eps/m - m/2), m = s sqrt(n) / sigma, computed in log space.
double gaussian_mechanism_delta(double sigma, double sensitivity, int64_t n, double epsilon);

}  // namespace noiselearn
