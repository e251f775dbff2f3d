#pragma once
// Printing a bound so that what is printed is as true as what is computed.
//
// A rigorous upper bound printed with round-to-nearest can come out *below* the value it bounds (and a lower
// bound above): 0.87654324 printed with 7 digits as 8.765432e-01 is no longer an upper bound. These functions
// work from the exact decimal expansion of the double (every finite double has one, at most 767 significant
// digits) and cut it in the requested direction, so the printed number is >= x (Rounding::kUp) or <= x
// (Rounding::kDown) as real numbers. When x is exactly representable with the requested digits it is printed
// as it is. Infinities print as "inf"/"-inf", NaN as "nan".
#include <string>

namespace noiselearn {

enum class Rounding { kUp, kDown };

// d.ddddde+XX with `significant` significant digits (>= 1).
std::string format_scientific(double x, int significant, Rounding direction);
// Fixed point with `decimals` digits after the point (>= 0).
std::string format_fixed(double x, int decimals, Rounding direction);
// Like printf's %g: `significant` digits, fixed or scientific by magnitude, trailing zeros removed.
std::string format_general(double x, int significant, Rounding direction);

// The shortest decimal text that reads back as exactly x (for echoing a user's value: 0.4999999 stays
// 0.4999999, never "0.5").
std::string format_exact(double x);

}  // namespace noiselearn
