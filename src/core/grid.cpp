#include "core/grid.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/errors.hpp"

namespace noiselearn {

void Grid::validate() const {
  if (!std::isfinite(origin)) throw InputError(fmt::format("grid origin {} is not finite", origin));
  if (!std::isfinite(step) || step <= 0.0)
    throw InputError(fmt::format("grid step {} must be finite and positive", step));
  if (size < 1) throw InputError(fmt::format("grid size {} must be at least 1", size));
  if (size > kMaxGridPoints)
    throw InputError(fmt::format("grid of {} points is too large (at most {})", size, kMaxGridPoints));
  if (!std::isfinite(last())) throw InputError("grid end is not finite");
}

bool Grid::is_symmetric() const { return std::abs(origin + last()) <= kGridRelativeTolerance * step; }

int64_t whole_steps(double length, double step, std::string_view what) {
  if (!std::isfinite(length) || length < 0.0) throw InputError(fmt::format("{} must be finite and non-negative", what));
  if (!std::isfinite(step) || step <= 0.0)
    throw InputError(fmt::format("grid step {} must be finite and positive", step));
  const double cells = length / step;
  if (cells > 9.0e15) throw InputError(fmt::format("{} is too many grid steps ({:g})", what, cells));
  const double rounded = std::round(cells);
  if (std::abs(cells - rounded) > kGridRelativeTolerance * std::max(1.0, cells)) {
    // Name the values that are on the grid, so that the user sees what to write instead.
    const double below = std::floor(cells) * step, above = std::ceil(cells) * step;
    const std::string nearest =
        below > 0.0 ? fmt::format("{:.12g} or {:.12g}", below, above) : fmt::format("{:.12g}", above);
    throw InputError(
        fmt::format("{} is not a whole number of grid steps (step {:.17g}: {:.12g} steps); the nearest "
                    "on the grid: {} (or choose a step that divides it)",
                    what, step, cells, nearest));
  }
  return static_cast<int64_t>(rounded);
}

Grid Grid::symmetric(double range, double step) {
  const int64_t half = whole_steps(range, step, fmt::format("range {:g}", range));
  Grid grid{-step * static_cast<double>(half), step, 2 * half + 1};
  grid.validate();
  return grid;
}

Grid Grid::spanning(double lower, double upper, double step) {
  if (!(upper >= lower)) throw InputError(fmt::format("range [{:g}, {:g}] is empty", lower, upper));
  const int64_t cells = whole_steps(upper - lower, step, fmt::format("range [{:g}, {:g}]", lower, upper));
  Grid grid{lower, step, cells + 1};
  grid.validate();
  return grid;
}

std::string describe(const Grid& grid) {
  return fmt::format("{} points, step {:.6g}, [{:.6g}, {:.6g}]", grid.size, grid.step, grid.origin, grid.last());
}

}  // namespace noiselearn
