#pragma once
// The n-fold composition of one release by one FFT: the characteristic function raised to the n-th power (as
// prv_accountant and dp_accounting do), made rigorous. Square-and-multiply needs about 2 log2 n convolutions of the
// growing distribution (three transforms each, twice when tilted); this is two transforms of one window.
//
// With x the release's masses (tilted by e^{lambda (l - r)} when the PLD is tilted), on loss indices 0 .. M-1 from
// its first index:
// - the window: the composed index sum J of n releases lies in [v, u] but for a mass of at most tail_mass each side,
//   by Chernoff's bound on x: P(J >= u) <= exp(n K(theta) - theta u), K(theta) = ln sum_i x_i e^{theta i} (theta > 0;
//   below, -theta), minimised over theta;
// - the transform: N >= max(u - v + 1, M) a power of two, X = FFT(x), Y_k = X_k^n by repeated squaring, z = IFFT(Y);
//   the window is read from z at J mod N. What lies outside the window is aliased onto it: a non-negative addition of
//   at most the two tail bounds, which the upper bound keeps (more mass only raises delta) and the lower bound pays as
//   an absolute allowance;
// - the floating-point error, in l2 over the N slots: the forward transform errs by at most kappa sqrt(N) ||x||_2
//   (kappa = 10 u log2 N, real_fft.hpp), a power multiplies a frequency's error by at most n (S + E)^(n-1) (S =
//   ||x||_1 >= |X_k|, E the largest frequency error), repeated squaring adds a relative 6 n u, and the inverse
//   transform kappa times the result's l2 norm; the window's l1 error is sqrt(window) times the l2 bound;
// - the release's own errors compose as in composition.cpp: relative (1 + r)^n - 1, absolute (S + e)^n - S^n;
// - the upper bound also gets the plain mass above the window (into the infinity mass) and below it (onto the first
//   point: moved up), each bounded by Chernoff on the plain masses; the lower bound drops them.
// A tilted composition is rigorous near the epsilon it was tilted for (its allowance is tilted); its plain allowance
// there, where the untilting would overflow, is infinite and the masses zeroed (their tilted values paid for).
#include <cstdint>
#include <optional>

#include "accounting/accountant_options.hpp"
#include "accounting/privacy_loss_distribution.hpp"

namespace noiselearn {

// The n-fold composition of `single` by one FFT power; nothing when it does not apply (n < 2, an empty release, or a
// window wider than 8 max_points). A result wider than max_points is coarsened by 2 until it fits
// (loss_discretisation), unless `coarsen` is false (a grid that is not of losses: random_allocation.hpp's ratios).
std::optional<PrivacyLossDistribution> self_compose_by_fft_power(const PrivacyLossDistribution& single, int64_t n,
                                                                 const AccountantOptions& options, bool coarsen = true);

}  // namespace noiselearn
