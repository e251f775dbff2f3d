#include "sampler/grid_release.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace noiselearn::sampler {

int64_t snap_to_grid_steps(double answer, double step) {
  if (!std::isfinite(answer))
    throw std::invalid_argument(fmt::format("snap_to_grid_steps: answer {} is not finite", answer));
  if (!(step > 0.0) || !std::isfinite(step))
    throw std::invalid_argument(fmt::format("snap_to_grid_steps: step {} is not positive", step));
  const double steps = std::nearbyint(answer / step);
  if (!(std::abs(steps) <= 0x1p62))
    throw std::invalid_argument(fmt::format("snap_to_grid_steps: {} / {} is beyond 2^62 steps", answer, step));
  return static_cast<int64_t>(steps);
}

double lattice_value(int64_t steps, double origin, double step) { return origin + step * static_cast<double>(steps); }

}  // namespace noiselearn::sampler
