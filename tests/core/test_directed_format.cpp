// Directed printing of bounds: the printed decimal is >= x (Rounding::kUp) or <= x (kDown) as real numbers, and
// as close as the requested digits allow. Checked with exact decimal arithmetic on strings (the exact expansion of
// a double from printf("%.780e"), which glibc prints exactly), never by parsing back with round-to-nearest.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "core/directed_format.hpp"

using namespace noiselearn;

namespace {

// A decimal number as sign, digit string without leading zeros and exponent: value = 0.digits x 10^exponent.
struct Decimal {
  bool negative = false;
  std::string digits;  // empty for zero
  int exponent = 0;
};

Decimal parse_decimal(const std::string& text) {
  Decimal d;
  size_t i = 0;
  if (text[i] == '-') {
    d.negative = true;
    ++i;
  }
  std::string mantissa;
  int point = -1, exponent = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.') {
      point = static_cast<int>(mantissa.size());
    } else if (c == 'e' || c == 'E') {
      exponent = std::stoi(text.substr(i + 1));
      break;
    } else {
      mantissa += c;
    }
  }
  if (point < 0) point = static_cast<int>(mantissa.size());
  size_t first = mantissa.find_first_not_of('0');
  if (first == std::string::npos) return Decimal{false, "", 0};
  d.digits = mantissa.substr(first);
  d.exponent = point - static_cast<int>(first) + exponent;
  while (!d.digits.empty() && d.digits.back() == '0') d.digits.pop_back();
  return d;
}

Decimal exact(double x) {
  char buffer[1024];
  std::snprintf(buffer, sizeof buffer, "%.780e", x);
  return parse_decimal(buffer);
}

// -1, 0, 1 as a < b, a == b, a > b.
int compare(const Decimal& a, const Decimal& b) {
  const bool a_zero = a.digits.empty(), b_zero = b.digits.empty();
  if (a_zero && b_zero) return 0;
  const int sign_a = a_zero ? 0 : (a.negative ? -1 : 1), sign_b = b_zero ? 0 : (b.negative ? -1 : 1);
  if (sign_a != sign_b) return sign_a < sign_b ? -1 : 1;
  int magnitude;  // compare |a| and |b|
  if (a.exponent != b.exponent) {
    magnitude = a.exponent < b.exponent ? -1 : 1;
  } else {
    const int c = a.digits.compare(b.digits);
    magnitude = c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  return sign_a < 0 ? -magnitude : magnitude;
}

}  // namespace

TEST_CASE("issue 7 reproducer: 0.87654324 printed as an upper bound is not below it", "[format]") {
  const double x = 0.87654324;
  // Round-to-nearest gives 8.765432e-01, which is below x.
  CHECK(format_scientific(x, 7, Rounding::kUp) == "8.765433e-01");
  CHECK(format_scientific(x, 7, Rounding::kDown) == "8.765432e-01");
  CHECK(format_fixed(x, 6, Rounding::kUp) == "0.876544");
  CHECK(format_fixed(x, 6, Rounding::kDown) == "0.876543");
  CHECK(format_exact(0.4999999) == "0.4999999");
}

TEST_CASE("values exactly representable in the requested digits print unchanged", "[format]") {
  CHECK(format_scientific(0.5, 4, Rounding::kUp) == "5.000e-01");
  CHECK(format_scientific(0.5, 4, Rounding::kDown) == "5.000e-01");
  CHECK(format_fixed(2.25, 2, Rounding::kUp) == "2.25");
  // 1e-3 is not a double: the nearest one is 0.00100000000000000002..., so up moves one unit, down does not.
  CHECK(format_general(1e-3, 6, Rounding::kUp) == "0.00100001");
  CHECK(format_general(1e-3, 6, Rounding::kDown) == "0.001");
  CHECK(format_scientific(0.0, 3, Rounding::kUp) == "0.00e+00");
  CHECK(format_fixed(0.0, 2, Rounding::kDown) == "0.00");
  CHECK(format_general(std::numeric_limits<double>::infinity(), 6, Rounding::kUp) == "inf");
}

TEST_CASE("carries and magnitudes: 9.9999 rounds up to 1.0e+01, tiny values in fixed notation", "[format]") {
  CHECK(format_scientific(9.99999, 2, Rounding::kUp) == "1.0e+01");
  CHECK(format_scientific(9.99999, 2, Rounding::kDown) == "9.9e+00");
  CHECK(format_fixed(1e-10, 6, Rounding::kUp) == "0.000001");
  CHECK(format_fixed(1e-10, 6, Rounding::kDown) == "0.000000");
  CHECK(format_fixed(-1e-10, 6, Rounding::kUp) == "0.000000");
  CHECK(format_fixed(-1e-10, 6, Rounding::kDown) == "-0.000001");
  CHECK(format_general(123456789.0, 3, Rounding::kUp) == "1.24e+08");
  CHECK(format_general(5e-324, 3, Rounding::kUp) == "4.95e-324");
}

TEST_CASE("random doubles: the printed text brackets x in the requested direction, within one unit", "[format]") {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-320, 300);
  for (int trial = 0; trial < 3000; ++trial) {
    const double x = mantissa(rng) * std::pow(10.0, exponent(rng));
    const Decimal exact_x = exact(x);
    for (int digits : {1, 4, 7, 12}) {
      const std::string up = format_scientific(x, digits, Rounding::kUp);
      const std::string down = format_scientific(x, digits, Rounding::kDown);
      INFO("x " << up << " / " << down);
      CHECK(compare(parse_decimal(up), exact_x) >= 0);
      CHECK(compare(parse_decimal(down), exact_x) <= 0);
      // Within one unit in the last printed place of each other: up and down differ by at most one unit.
      const Decimal u = parse_decimal(up), d = parse_decimal(down);
      CHECK(std::abs(u.exponent - d.exponent) <= 1);
      const std::string general_up = format_general(x, digits, Rounding::kUp);
      const std::string general_down = format_general(x, digits, Rounding::kDown);
      CHECK(compare(parse_decimal(general_up), exact_x) >= 0);
      CHECK(compare(parse_decimal(general_down), exact_x) <= 0);
    }
    const std::string fixed_up = format_fixed(x, 6, Rounding::kUp), fixed_down = format_fixed(x, 6, Rounding::kDown);
    CHECK(compare(parse_decimal(fixed_up), exact_x) >= 0);
    CHECK(compare(parse_decimal(fixed_down), exact_x) <= 0);
  }
}

TEST_CASE("a setting prints as the documentation writes it, and reads back as the same double", "[format]") {
  CHECK(format_setting(1e-4) == "1e-4");
  CHECK(format_setting(1e-15) == "1e-15");
  CHECK(format_setting(3e10) == "3e10");
  CHECK(format_setting(1.5e-7) == "1.5e-7");
  CHECK(format_setting(-1e-4) == "-1e-4");
  CHECK(format_setting(0.05) == "0.05");
  CHECK(format_setting(1000.0) == "1000");
  CHECK(format_setting(0.0) == "0");
  CHECK(format_settings({1e-3, 1e-6, 1e-9}) == "1e-3, 1e-6, 1e-9");
  CHECK(format_settings({1e-3, 1e-6}, " ") == "1e-3 1e-6");
  for (double x : {1e-4, 0.1 + 0.2, 123456.789, 2.5e-300, 1.7976931348623157e308})
    CHECK(std::stod(format_setting(x)) == x);
}
