#pragma once
// The multiply-add kernel of the exact adaptive programme (adaptive_composition.hpp) and of the direct convolution
// (convolution.hpp):
//   out[p] += sum_j masses[j] source[p + offsets[j]]   for p in [0, width).
// source must be readable at every p + offsets[j]. Blocks of 32 outputs from the start are each accumulated in one
// fixed order, so splitting the window into chunks that start at multiples of 32 (threads) does not change a bit. A sum
// of m non-negative products is computed with relative error at most (m + 2) u (u = 2^-53), with or without fused
// multiply-adds.
#include <cstddef>
#include <cstdint>

namespace noiselearn {

void shift_add(const double* masses, const int64_t* offsets, size_t atoms, const double* source, int64_t width,
               double* out);

}  // namespace noiselearn
