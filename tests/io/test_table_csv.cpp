#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>

#include "io/table_csv.hpp"

using namespace noiselearn;

namespace {
NumberSyntax syntax_of(const char* text) {
  double ignored = 0.0;
  return parse_double(text, ignored);
}
}  // namespace

TEST_CASE("numbers parse exactly, whatever the locale, and only as whole fields", "[table_csv]") {
  double value = 0.0;
  // Correct rounding: the shortest decimal of a double and its 17-digit form give the same bits.
  REQUIRE(parse_double("0.30000000000000004", value) == NumberSyntax::kValid);
  CHECK(value == 0.1 + 0.2);
  REQUIRE(parse_double("4.9e-324", value) == NumberSyntax::kValid);  // the smallest denormal
  CHECK(value == std::numeric_limits<double>::denorm_min());
  REQUIRE(parse_double("+2.5E+1", value) == NumberSyntax::kValid);
  CHECK(value == 25.0);
  REQUIRE(parse_double("-0", value) == NumberSyntax::kValid);
  CHECK(std::signbit(value));

  // Non-finite values parse, so that the reader can reject them by name.
  REQUIRE(parse_double("-inf", value) == NumberSyntax::kValid);
  CHECK(value == -std::numeric_limits<double>::infinity());
  REQUIRE(parse_double("nan", value) == NumberSyntax::kValid);
  CHECK(std::isnan(value));

  // Underflow to 0 and overflow are refused, not rounded.
  CHECK(syntax_of("1e-400") == NumberSyntax::kOutOfRange);
  CHECK(syntax_of("-1e400") == NumberSyntax::kOutOfRange);

  for (const char* text : {"", "abc", "0x10", "1,5", "1.5.2", " 1", "1 ", "++1", "+-1", "1e", "--1"})
    CHECK(syntax_of(text) == NumberSyntax::kNotANumber);
}

TEST_CASE("CSV rows keep the line they came from", "[table_csv]") {
  const std::string text = "\xEF\xBB\xBF# written by hand\r\n x , p \r\n\r\n0, 0.5\r\n# middle\n1 ,0.5";
  const TableCsvRows rows = parse_table_csv(text, "t.csv");
  CHECK(rows.has_header);
  CHECK(rows.columns == 2);
  CHECK(rows.x == std::vector<double>{0.0, 1.0});
  CHECK(rows.p == std::vector<double>{0.5, 0.5});
  CHECK(rows.line == std::vector<int64_t>{4, 6});
}
