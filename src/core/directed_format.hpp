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
#include <vector>

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

// A setting's value as the documentation writes it (a default in a help text or docstring): the shortest text that
// reads back as exactly x, in scientific notation without '+' or leading exponent zeros outside [0.01, 1e5) ("1e-4",
// "3e10"), fixed inside ("0.05", "1000").
std::string format_setting(double x);
// Several, joined by `separator` ("1e-3, 1e-6, 1e-9").
std::string format_settings(const std::vector<double>& values, const std::string& separator = ", ");

}  // namespace noiselearn
