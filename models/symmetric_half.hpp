#pragma once
// The non-positive half of a symmetric grid, from which the symmetric models (sigmoid stack, symmetric free
// logits, monotone logits) build their profile before mirroring it (Sommer et al., eq. 4: "mirrored and
// concatenated to obtain symmetric noise").
//
// The half is grid indices 0 .. half_size - 1 in ascending x. On an odd grid (E = 2N + 1) it is x_0 .. x_N = 0
// and the centre x = 0 is not repeated by the mirror; on an even symmetric grid it is the E/2 points below 0.
// Mirroring copies values, so the result is symmetric bit for bit (log p_i == log p_{E-1-i}).
#include <torch/torch.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/grid.hpp"
#include "core/noise_table.hpp"

namespace noiselearn {

// The number of points in the half. Throws InputError naming `model` unless the grid is symmetric.
int64_t symmetric_half_size(const Grid& grid, std::string_view model);

// The full profile [grid.size] from a half profile [symmetric_half_size(grid)].
torch::Tensor mirror_half(const torch::Tensor& half, const Grid& grid);

// The half of `table` projected onto symmetric tables: q_i = (p_i + p_{E-1-i}) / 2 for the half's indices i
// (the closest symmetric table in any norm invariant under the mirror, with the same mass; exact, bit for bit,
// on a mirrored table). The set where p > 0 must itself be mirrored: the support is a structural choice
// (truncation), never changed silently. Throws InputError naming `model` otherwise, or if the grid is not
// symmetric.
std::vector<double> symmetrised_half(const NoiseTable& table, std::string_view model);

}  // namespace noiselearn
