#include "models/symmetric_half.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"

namespace noiselearn {

int64_t symmetric_half_size(const Grid& grid, std::string_view model) {
  grid.validate();
  if (!grid.is_symmetric())
    throw InputError(fmt::format("{} needs a grid symmetric around 0, got {}", model, describe(grid)));
  return grid.size - grid.size / 2;
}

torch::Tensor mirror_half(const torch::Tensor& half, const Grid& grid) {
  const int64_t repeated_centre = grid.size % 2;
  const torch::Tensor mirrored = half.flip(0).narrow(0, repeated_centre, half.size(0) - repeated_centre);
  return torch::cat({half, mirrored});
}

std::vector<double> symmetrised_half(const NoiseTable& table, std::string_view model) {
  const Grid& grid = table.grid();
  const int64_t half = symmetric_half_size(grid, model);
  std::vector<double> q(static_cast<size_t>(half));
  for (int64_t i = 0; i < half; ++i) {
    const double left = table.p(i), right = table.p(grid.size - 1 - i);
    if ((left > 0.0) != (right > 0.0))
      throw InputError(
          fmt::format("{} needs a table whose support is symmetric around 0: p({:.17g}) = {:.17g} but "
                      "p({:.17g}) = {:.17g}",
                      model, grid.x(i), left, grid.x(grid.size - 1 - i), right));
    q[static_cast<size_t>(i)] = 0.5 * (left + right);
  }
  return q;
}

}  // namespace noiselearn
