#pragma once
// Adding grid noise to a floating-point answer without Mironov's attack.
//
// Mironov (CCS 2012) showed that answer + noise computed in floating point leaks the answer: the set of
// doubles reachable from one answer differs from the set reachable from a neighbouring one (rounding depends
// on both operands), so some outputs are impossible under one input and reveal it. The safe release works on
// the lattice of the noise grid: snap the answer to a whole number of grid steps k first, add the noise's
// grid index i as integers, and compute the output from the integer k + i alone. The output is then a
// function of k + i only; the noise table's guarantee applies to k + i, with the sensitivity measured in grid
// steps (snapping moves neighbouring answers by at most one extra step, which the sensitivity must cover:
// snap before computing the sensitivity, or add one step to it).
#include <cstdint>

namespace noiselearn::sampler {

// round(answer / step) as an integer (ties to even). Throws std::invalid_argument for a non-finite answer,
// a non-positive step, or a quotient beyond +-2^62.
int64_t snap_to_grid_steps(double answer, double step);

// The released value for the integer lattice point `steps` of a grid with `origin` and `step`:
// origin + step * steps, a function of the integer alone. Exact for integer grids while |value| < 2^53.
double lattice_value(int64_t steps, double origin, double step);

}  // namespace noiselearn::sampler
