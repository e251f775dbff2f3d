#pragma once
// Calibrating the HRDP optimum to the certificate (target.mode delta of the convex optimiser): the certificate is
// tighter than HRDP, so the HRDP budget is moved until the optimum's *certified* delta meets the target. The search
// is here; solving and certifying each trial is the caller's (run/hybrid_renyi_optimiser.cpp).
#include <functional>
#include <limits>

#include "accounting/certificate.hpp"
#include "solvers/hybrid_renyi_optimum.hpp"

namespace noiselearn {

// One candidate of the calibration: the optimum at HRDP budget b and order alpha, and what its certificate says.
struct HybridRenyiTrial {
  double budget = 0.0;
  HybridRenyiOptimum solved;
  Certificate certificate;
  double delta = 1.0;  // certified delta (upper) at the target epsilon; 1 when the program is infeasible
  double epsilon =
      std::numeric_limits<double>::quiet_NaN();  // certified epsilon (upper) at the target delta, if finite
  bool meets = false;
};

struct HybridRenyiCalibration {
  bool found = false;
  HybridRenyiTrial kept;  // the largest budget found that meets the target
  int certificates = 0;
  bool bracketed = true;  // false: no budget that misses was found (the expansion stopped), the largest meeting kept
};

// The certificate is tighter than HRDP, so the HRDP optimum at loss.epsilon usually has certified delta well below
// the target: move the HRDP budget b (its delta staying loss.delta) to the largest, within `tolerance` relative,
// whose optimum at order alpha still certifies delta(loss.epsilon) <= target.delta, from the trial `first`. Every
// candidate is certified; only certified ones are kept, so the result meets the target whatever the shape of the
// curve (the search's model only picks the trials).
//
// The model: the certified epsilon at target.delta of the optimum at budget b, e(b), is nearly proportional to b
// (both measure the same table's privacy loss), so ln e is nearly linear in ln b with slope 1; the target is
// e(b) = loss.epsilon. The search:
// - from a first trial that misses, step down along that line (aimed 2 tolerances low; by 1.25 without a value)
//   until a budget meets, bisecting once a budget is infeasible (too small for any table at this order); from an
//   infeasible first trial, up by 1.25;
// - to find a budget that misses, step to where the line through (ln b, ln e(b)) crosses ln e_target: with slope 1
//   at first (b e_target / e(b)), then the secant's slope through the last two budgets that met; aimed 2 tolerances
//   high so that an accurate step lands just past the root; 1.5 b when e(b) is unknown;
// - then a safeguarded regula falsi over the bracket [low (meets), high (misses)]: the chord of ln e against ln b
//   where both ends have e (else of ln(delta / target.delta) against b) crosses the target; Illinois (the value of
//   an end that stays put twice is halved, so both ends move); moved 0.45 of the tolerance towards the end that did
//   not move last, so that once the chord is accurate two trials straddle the root and close the bracket. Without a
//   value at an end (an infeasible program) it bisects.
// About 4-5 certificates where the certificate is smooth in b (fewer than a chord of ln delta from 1.5 b or a
// bisection need), more for the Vuvuzela table, whose certificate (blocks of the adaptive programme, their length
// chosen per table) jumps by up to 1 % between budgets 2e-5 apart.
// `trial(b)` solves and certifies the optimum at budget b (the order fixed by the caller); `first` is the trial the
// search starts from; target_epsilon is loss.epsilon, target_delta the certified delta to meet at it.
HybridRenyiCalibration calibrate_hybrid_renyi_budget(HybridRenyiTrial first, double target_epsilon, double target_delta,
                                                     double tolerance_relative,
                                                     const std::function<HybridRenyiTrial(double budget)>& trial);

}  // namespace noiselearn
