#pragma once
// Floating-point error terms for IEEE double with rounding to nearest: one operation's result is x (1 + e) with
// |e| <= u, the unit roundoff 2^-53 (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., eq. 2.4), and
// the machine epsilon is 2u, the gap between 1 and the next double. A rigorous bound is rounded outwards by its error:
// an upper bound up (raised_by), a lower bound down (lowered_by); the relative error gamma is the caller's (a sum of n
// non-negative terms: (n - 1) u / (1 - (n - 1) u), Higham eq. 3.4, which the callers round up to a few more units).
#include <algorithm>

namespace noiselearn {

inline constexpr double kUnitRoundoff = 0x1p-53;    // u
inline constexpr double kMachineEpsilon = 0x1p-52;  // 2u, std::numeric_limits<double>::epsilon()

// The relative error of k roundings: k u (to first order; (1 + u)^k - 1 <= k u / (1 - k u), which the callers cover by
// counting a few more).
constexpr double roundings(double k) { return k * kUnitRoundoff; }

// An upper bound of a non-negative quantity computed as x with relative error at most gamma.
inline double raised_by(double x, double gamma) { return x * (1.0 + gamma); }
// A lower bound of the same, never below 0.
inline double lowered_by(double x, double gamma) { return std::max(0.0, x * (1.0 - gamma)); }

}  // namespace noiselearn
