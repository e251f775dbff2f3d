#pragma once
// A uniform grid of noise values x_i = origin + i * step, i = 0 .. size-1.
#include <cstdint>
#include <string>
#include <string_view>

namespace noiselearn {

// Relative tolerance used whenever a real number must be a whole number of grid steps
// (src/README.md, numerical rules; Sommer et al. erratum E-Sommer-1 of experiments/errata.md: a step that
// does not divide the sensitivity silently tests a smaller shift).
inline constexpr double kGridRelativeTolerance = 1e-9;

// The largest grid noiselearn builds: 10^8 + 1 points are 800 MB of probabilities, about 5 GB as CSV text,
// and several times that in a certificate's work. Refusing beyond it names the culprit; allocating would
// end in std::bad_alloc.
inline constexpr int64_t kMaxGridPoints = 100'000'001;

struct Grid {
  double origin = 0.0;
  double step = 1.0;
  int64_t size = 0;

  double x(int64_t i) const { return origin + step * static_cast<double>(i); }
  double last() const { return x(size - 1); }

  // Throws InputError unless origin and step are finite, step > 0 and 1 <= size <= kMaxGridPoints.
  void validate() const;

  // True if the grid is symmetric around 0 (x_i = -x_{size-1-i} within the grid tolerance).
  bool is_symmetric() const;

  // A grid on [-range, range] with the given step; range must be a whole number of steps.
  static Grid symmetric(double range, double step);
  // A grid on [lower, upper]; (upper - lower) must be a whole number of steps.
  static Grid spanning(double lower, double upper, double step);
};

// The number of grid cells k with k * step == length, within kGridRelativeTolerance.
// Throws InputError naming `what` (e.g. "sensitivity 1.5") if length is not a whole number of steps.
int64_t whole_steps(double length, double step, std::string_view what);

std::string describe(const Grid& grid);

}  // namespace noiselearn
