#pragma once
// The d-fold product pair: a mechanism applied to d coordinates, each with its own independent noise, when two
// neighbouring inputs differ by at most the mechanism's sensitivity in every coordinate (per-coordinate, L-infinity,
// clipping: DP-SGD with noise drawn per coordinate). Each coordinate's worst pair is the mechanism's (P, Q) (a smaller
// or opposite difference is a post-processing of it: the mechanism's own worst-case argument, per coordinate), so the
// product (P^d, Q^d) is the worst pair of the d coordinates, and its privacy loss is the sum of the coordinates'
// losses. Sampling then mixes the products, A = (1 - q) Q^d + q P^d, and every direction's loss is a monotone function
// of that sum (sampled_release.hpp): so what sampling needs is the law of the sum under P^d and Q^d, for the upper
// bound from a pair that dominates the product and for the lower bound from one that the product dominates.
//
// Both are exact discrete laws on a grid of step h, made from the mechanism's law (mechanism_pair.hpp):
//   upper: each coordinate's outcomes split between the grid points around their loss keeping both masses
//     (connect-the-dots: the coordinate's pair is a post-processing of the split one); the d-fold product of split
//     coordinates has its losses exactly on the grid, Q^d = e^{-L} P^d there, so one vector of P masses holds it. What
//     is pruned from the ends (P and Q masses each below 1e-3 of the tail mass) has its loss rounded up: to the lowest
//     kept point, or to +infinity (P mass, the Q mass left over going to an outcome that P never gives). Rounding a
//     loss up with the Q mass it frees kept apart is a pair of which the original is a post-processing (map the outcome
//     back; map the freed outcome to the original ones in proportion to the freed Q masses), so the result dominates.
//   lower: each coordinate's outcomes merged by grid point of their loss (the P and Q masses of each merged outcome
//     summed); the product of merged coordinates merged again by the index sum, the ends into the end points: every
//     merge is a post-processing, so the product dominates the result. Its losses are ln(P/Q) of the merged masses.
// The d-fold products are repeated squarings of non-negative vectors convolved directly (no FFT), so every mass carries
// a relative error bound (each sum of m non-negative products is within m units in the last place): the upper masses
// are raised by it and the lower ones lowered, and the lower losses widened by it, which keeps both bounds rigorous.
#include <cstdint>

#include "accounting/mechanism_pair.hpp"

namespace noiselearn {

struct CoordinateProductLaws {
  LossLaw upper;      // atoms of a pair that dominates (P^d, Q^d); masses raised by relative_error
  LossLaw lower;      // cells [l - w, l + w] of a pair that (P^d, Q^d) dominates; masses lowered by relative_error
  double step = 0.0;  // the grid step h of the product's losses
  double relative_error = 0.0;  // the bound on the masses' relative floating-point error
  int64_t points = 0;           // the widest product vector (for reports and benchmarks)
};

// The product of `coordinates` copies of `law` (>= 2) on a grid of step at most `step` (coarser where the product's
// loss range would need more than max_points points). `negligible`: what may be pruned at each end of a product.
CoordinateProductLaws coordinate_product_laws(const LossLaw& law, double mass_relative_error, int64_t coordinates,
                                              double step, double negligible, int64_t max_points = 1 << 16);

}  // namespace noiselearn
