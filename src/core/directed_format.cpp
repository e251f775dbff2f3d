#include "core/directed_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace noiselearn {

namespace {

// |x| = 0.d1 d2 d3 ... x 10^exponent10 exactly (digits without leading zeros); x finite and non-zero.
struct ExactDecimal {
  bool negative = false;
  std::string digits;
  int exponent10 = 0;  // value = 0.digits * 10^exponent10
};

ExactDecimal exact_decimal(double x) {
  // glibc's printf prints the exact binary value for any precision; 780 digits after the first cover every
  // double (at most 767 significant digits), so the expansion below is exact.
  char buffer[1024];
  const int written = std::snprintf(buffer, sizeof buffer, "%.780e", std::fabs(x));
  if (written <= 0 || written >= static_cast<int>(sizeof buffer)) throw std::logic_error("exact_decimal: snprintf");
  const std::string text(buffer, static_cast<size_t>(written));
  const size_t e = text.find('e');
  ExactDecimal result;
  result.negative = std::signbit(x);
  result.digits = text.substr(0, 1) + text.substr(2, e - 2);
  result.exponent10 = std::stoi(text.substr(e + 1)) + 1;
  while (result.digits.size() > 1 && result.digits.back() == '0') result.digits.pop_back();
  return result;
}

// Keeps `keep` leading digits (keep may be <= 0: nothing kept), rounding the magnitude away from zero when
// `away` and any dropped digit is non-zero. May lengthen by one digit on carry (exponent10 then grows).
ExactDecimal cut(ExactDecimal value, int keep, bool away) {
  if (keep < 0) {
    // Everything, and the zero digits below the first one, is dropped.
    value.exponent10 += -keep;
    keep = 0;
  }
  const bool dropped_nonzero = static_cast<int>(value.digits.size()) > keep;
  if (static_cast<int>(value.digits.size()) > keep) value.digits.resize(static_cast<size_t>(keep));
  if (dropped_nonzero && away) {
    // Add one unit in the last kept place.
    int i = static_cast<int>(value.digits.size()) - 1;
    while (i >= 0 && value.digits[static_cast<size_t>(i)] == '9') value.digits[static_cast<size_t>(i--)] = '0';
    if (i >= 0) {
      ++value.digits[static_cast<size_t>(i)];
    } else {
      value.digits.insert(value.digits.begin(), '1');
      ++value.exponent10;
    }
  }
  return value;
}

// Round the magnitude away from zero exactly when that moves the value in the requested direction.
bool away_from_zero(bool negative, Rounding direction) { return (direction == Rounding::kUp) != negative; }

std::string special(double x) {
  if (std::isnan(x)) return "nan";
  return x > 0 ? "inf" : "-inf";
}

std::string scientific_from(const ExactDecimal& value, int significant) {
  std::string digits = value.digits;
  digits.resize(static_cast<size_t>(significant), '0');
  std::string out = value.negative ? "-" : "";
  out += digits.substr(0, 1);
  if (significant > 1) out += "." + digits.substr(1);
  const int exponent = value.exponent10 - 1;
  out += fmt::format("e{}{:02d}", exponent < 0 ? '-' : '+', std::abs(exponent));
  return out;
}

std::string fixed_from(const ExactDecimal& value, int decimals, bool is_zero) {
  // value = 0.digits x 10^exponent10; integer part has max(exponent10, 0) digits.
  std::string integer_part, fraction(static_cast<size_t>(decimals), '0');
  if (is_zero) {
    integer_part = "0";
  } else {
    const int e = value.exponent10;
    for (int i = 0; i < e; ++i)
      integer_part += i < static_cast<int>(value.digits.size()) ? value.digits[static_cast<size_t>(i)] : '0';
    if (integer_part.empty()) integer_part = "0";
    for (int i = 0; i < decimals; ++i) {
      const int index = e + i;  // digit position in `digits`
      if (index >= 0 && index < static_cast<int>(value.digits.size()))
        fraction[static_cast<size_t>(i)] = value.digits[static_cast<size_t>(index)];
    }
  }
  std::string out = value.negative && !is_zero ? "-" : "";
  out += integer_part;
  if (decimals > 0) out += "." + fraction;
  return out;
}

}  // namespace

std::string format_scientific(double x, int significant, Rounding direction) {
  if (significant < 1) throw std::invalid_argument("format_scientific: significant digits must be >= 1");
  if (!std::isfinite(x)) return special(x);
  if (x == 0.0) return scientific_from(ExactDecimal{false, "0", 1}, significant);
  const ExactDecimal exact = exact_decimal(x);
  ExactDecimal rounded = cut(exact, significant, away_from_zero(exact.negative, direction));
  if (rounded.digits.empty() || rounded.digits.find_first_not_of('0') == std::string::npos)
    return scientific_from(ExactDecimal{false, "0", 1}, significant);
  return scientific_from(rounded, significant);
}

std::string format_fixed(double x, int decimals, Rounding direction) {
  if (decimals < 0) throw std::invalid_argument("format_fixed: decimals must be >= 0");
  if (!std::isfinite(x)) return special(x);
  if (x == 0.0) return fixed_from(ExactDecimal{}, decimals, true);
  const ExactDecimal exact = exact_decimal(x);
  // Keep the digits down to 10^-decimals: exponent10 + decimals of them.
  ExactDecimal rounded = cut(exact, exact.exponent10 + decimals, away_from_zero(exact.negative, direction));
  const bool zero = rounded.digits.find_first_not_of('0') == std::string::npos;
  return fixed_from(rounded, decimals, zero);
}

std::string format_general(double x, int significant, Rounding direction) {
  if (significant < 1) throw std::invalid_argument("format_general: significant digits must be >= 1");
  if (!std::isfinite(x)) return special(x);
  if (x == 0.0) return "0";
  const ExactDecimal exact = exact_decimal(x);
  const ExactDecimal rounded = cut(exact, significant, away_from_zero(exact.negative, direction));
  const int exponent = rounded.exponent10 - 1;  // of the leading digit
  std::string text;
  if (exponent < -4 || exponent >= significant) {
    text = scientific_from(rounded, significant);
    // Strip trailing zeros of the mantissa.
    const size_t e = text.find('e');
    std::string mantissa = text.substr(0, e);
    if (mantissa.find('.') != std::string::npos) {
      while (mantissa.back() == '0') mantissa.pop_back();
      if (mantissa.back() == '.') mantissa.pop_back();
    }
    text = mantissa + text.substr(e);
  } else {
    text = fixed_from(rounded, std::max(0, significant - 1 - exponent), false);
    if (text.find('.') != std::string::npos) {
      while (text.back() == '0') text.pop_back();
      if (text.back() == '.') text.pop_back();
    }
  }
  return text;
}

std::string format_exact(double x) {
  if (!std::isfinite(x)) return special(x);
  return fmt::format("{}", x);
}

std::string format_setting(double x) {
  if (!std::isfinite(x)) return special(x);
  const double magnitude = std::fabs(x);
  const bool scientific = magnitude != 0.0 && (magnitude < 1e-2 || magnitude >= 1e5);
  char buffer[64];
  const auto written =
      std::to_chars(buffer, buffer + sizeof buffer, x,
                    scientific ? std::chars_format::scientific : std::chars_format::fixed);  // shortest round trip
  std::string text(buffer, written.ptr);
  if (!scientific) return text;
  // "1e-04" -> "1e-4", "3e+10" -> "3e10"
  const size_t e = text.find('e');
  std::string exponent = text.substr(e + 1);
  const bool negative = exponent.front() == '-';
  if (exponent.front() == '-' || exponent.front() == '+') exponent.erase(0, 1);
  exponent.erase(0, std::min(exponent.find_first_not_of('0'), exponent.size() - 1));
  return text.substr(0, e + 1) + (negative ? "-" : "") + exponent;
}

std::string format_settings(const std::vector<double>& values, const std::string& separator) {
  std::string text;
  for (size_t i = 0; i < values.size(); ++i) text += (i > 0 ? separator : "") + format_setting(values[i]);
  return text;
}

}  // namespace noiselearn
