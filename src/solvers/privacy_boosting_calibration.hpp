#pragma once
// Calibration of the privacy-boosting mechanism (Jiang et al., section 3.4 and section 6) against the exact
// certificate (accounting/privacy_boosting_accountant.hpp), not the paper's heuristic.
//
// * The kernel scale: for a utility constraint (region, rho), sensitivity and delta, the scale whose certified
//   epsilon (upper bound) after n releases is least. Below the scale s0 at which the kernel alone meets rho, the
//   mechanism is the plain kernel with less noise (q = 0), so the search runs over [s0, max_scale_factor s0]: a
//   geometric scan (extended by the same ratio while its last point is the best, up to 64 s0; with no s0, as for a
//   fixed region and rho > 1/2, over
//   [|S|/32, |S|] with 24 points),
//   then golden-section refinement around the best scan point (the curve has a kink where the
//   region constant starts to matter, so the scan guards against a second local minimum).
// * The inversions of section 6 at a given kernel scale: the largest rho whose certified epsilon is at most a
//   target, and the smallest region (tau) that meets (epsilon, rho). The certified epsilon is NOT monotone in
//   rho or tau (a little boosting first lowers the kernel's tail losses, then the region constant takes over), so
//   each scans a grid (rho: 33 points from the kernel's own region mass to 1; tau: 49 geometric points from
//   sd/64 to 64 sd) and bisects at the last / first crossing.
#include <cstdint>
#include <vector>

#include "accounting/accountant_options.hpp"
#include "accounting/privacy_boosting_accountant.hpp"
#include "core/privacy_boosting.hpp"

namespace noiselearn {

struct BoostingCalibrationOptions {
  int64_t compositions = 1;          // n
  double delta = 1e-5;               // epsilon is certified at this delta
  int scan_points = 12;              // geometric scan of the kernel scale
  double max_scale_factor = 2.0;     // largest scale tried, in units of s0
  double relative_tolerance = 1e-3;  // golden section stops when the bracket is this narrow (relative)
};

struct BoostingCalibration {
  double scale = 0.0;              // the chosen kernel scale
  double kernel_only_scale = 0.0;  // s0: the kernel alone meets rho
  double epsilon_upper = 0.0;      // certified at the chosen scale
  double epsilon_lower = 0.0;
  int evaluations = 0;
  std::vector<std::pair<double, double>> scan;  // (scale, certified epsilon upper bound)
};

// Certified epsilon bounds (upper, lower) at delta after n releases.
std::pair<double, double> boosting_certified_epsilon(const PrivacyBoostingMechanism& mechanism,
                                                     const AnswerSensitivity& answer_bound, int64_t compositions,
                                                     double delta, const AccountantOptions& options);

// The scale at which the kernel alone puts mass rho into the smallest region (bisection on the scale); 0 when no
// kernel alone can (a fixed region whose edge is the answer holds at most 1/2 of a symmetric kernel).
double kernel_only_scale(BoostingKernelKind kind, const PreferredRegion& region, double rho);

BoostingCalibration calibrate_boosting_scale(BoostingKernelKind kind, const PreferredRegion& region, double rho,
                                             const AnswerSensitivity& answer_bound,
                                             const BoostingCalibrationOptions& calibration,
                                             const AccountantOptions& options);

// The largest rho in (0, 1) whose certified epsilon is at most target_epsilon at the given kernel (0 if none).
double largest_rho_for_epsilon(const BoostingKernel& kernel, const PreferredRegion& region, double target_epsilon,
                               const AnswerSensitivity& answer_bound, int64_t compositions, double delta,
                               const AccountantOptions& options);

// The smallest tau (interval or relative region; for a fixed region, the half-width around its centre) whose
// certified epsilon is at most target_epsilon at confidence rho and the given kernel (+inf if none in the scan).
double smallest_region_for_epsilon(const BoostingKernel& kernel, const PreferredRegion& region, double rho,
                                   double target_epsilon, const AnswerSensitivity& answer_bound, int64_t compositions,
                                   double delta, const AccountantOptions& options);

}  // namespace noiselearn
