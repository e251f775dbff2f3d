#pragma once
// A lower bound on delta(eps) of an n-fold composition by a post-processing of every release to two outcomes: H, the
// outcomes whose privacy loss is positive, and L, the rest. Any partition of the outcomes is a post-processing, so the
// pair (f, 1 - f) against (s, 1 - s), f and s the masses of H under the direction's first and second distribution, is
// dominated by the release; composed n times it is binomial, and
//   delta_n(eps) >= sum_k C(n, k) max(0, f^k (1 - f)^(n - k) - e^eps s^k (1 - s)^(n - k)),
// exact in O(n) (the terms far in the binomial's tails, below 1e-300, are left out: a lower bound may drop terms).
//
// Why: a sampled discrete mechanism's privacy loss has a few atoms that the loss grid does not hold, and the
// discretised lower bound (merge-to-grid) merges a share of one atom into another at every release to land on the grid,
// an error of first order in the loss step that compounds over the releases (src/accounting/README.md, "Atoms of
// loss"). With two atoms, one of each sign (the Poisson-sampled discrete Laplace of sensitivity 1, randomized
// response), this bound is the exact value; for dense laws it is far below the discretised one, which the bounds then
// keep (they take the larger).
#include <cstdint>

namespace noiselearn {

struct TwoOutcomeComposition {
  // Natural logarithms of the masses of H and L under the direction's first and second distribution (-infinity: no
  // mass, e.g. the second's of outcomes of infinite loss). The first's are at most, the second's at least the exact
  // masses up to relative_error: logarithms, because a second mass of outcomes thousands of nats apart underflows.
  double log_first_high = -1e308, log_first_low = -1e308, log_second_high = -1e308, log_second_low = -1e308;
  // Relative error of the four masses as computed (padded for in the logarithms).
  double relative_error = 0.0;
  int64_t compositions = 0;

  // Rigorous lower bounds of the n-fold composition's delta at epsilon, and of its epsilon at delta, at least
  // `at_least` (a lower bound known already: one evaluation decides whether this one is larger; infinity where the
  // distinguishing events alone exceed delta).
  double delta_lower(double epsilon) const;
  double epsilon_lower(double delta, double at_least = 0.0) const;
};

}  // namespace noiselearn
