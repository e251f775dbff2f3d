#pragma once
// Calibration of a baseline family's scale: the scale that gives (i) a target utility, or (ii) a target
// certified delta at (epsilon, n). Used to compare a learned table with "the truncated Gaussian at the same
// utility" (-> its delta) and "at the same certified delta" (-> its utility).
#include <cstdint>
#include <string>

#include "accounting/accountant_options.hpp"
#include "core/baseline_factory.hpp"
#include "core/dominating_pair.hpp"
#include "core/utility.hpp"

namespace noiselearn {

// The family parameter that calibration varies: "sigma" (gaussian, truncated-gaussian, discrete-gaussian),
// "scale" (laplace, truncated-laplace, discrete-laplace) or "range" (uniform). Throws InputError for families
// without a scale (staircase: its shape is fixed by epsilon).
std::string calibrated_parameter(const std::string& family);

struct Calibration {
  double value = 0.0;  // of calibrated_parameter(family)
  NoiseTable table;
  double achieved = 0.0;  // the utility, or the certified upper delta, of `table`
  int evaluations = 0;
};

// The scale whose table has utility `target` (relative tolerance 1e-9). Utility grows with the scale; a
// target above what the grid allows (a truncated family saturates) or below what the grid can resolve is an
// InputError that says the reachable range.
Calibration calibrate_to_utility(const std::string& family, const Grid& grid, BaselineParameters parameters,
                                 const UtilitySpecification& kind, double target);

struct DeltaTarget {
  double epsilon = 1.0;
  double delta = 1e-6;
  int64_t compositions = 1;
  PairSpecification pair;
  AccountantOptions accountant;
  // Rule out scales far from the target by a coarse composition's rigorous lower bound first (the search's decisions,
  // and so its result, are the same bit for bit; only faster). False: every decision by the full composition (the
  // reference the tests and benchmarks compare with).
  bool coarse_first = true;
};

// The smallest scale (least noise) whose certified upper delta at (epsilon, n) is <= target.delta (relative
// tolerance 1e-6 in the scale). For truncated families delta is U-shaped in the scale (distinguishing events
// grow with it); the search scans log-spaced scales and bisects the first crossing. If no scale on the grid
// meets the target, InputError reports the smallest delta found and where.
Calibration calibrate_to_delta(const std::string& family, const Grid& grid, BaselineParameters parameters,
                               const DeltaTarget& target);

}  // namespace noiselearn
