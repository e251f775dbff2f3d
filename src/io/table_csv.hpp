#pragma once
// The numeric columns of a noise-table CSV (x, p and an optional logp), each row with the line of the
// file it came from so that every later check can name that line.
//
// Accepted text: one row per line, fields separated by commas with optional spaces or tabs around them,
// CRLF or LF line ends, an optional UTF-8 byte-order mark, blank lines and lines starting with '#'
// skipped, and an optional header (a first row in which no field is a number). A third column is a
// log-probability; it must be a number (or -inf) but its values are not used, p is authoritative.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace noiselearn {

struct TableCsvRows {
  std::vector<double> x;
  std::vector<double> p;
  std::vector<int64_t> line;  // 1-based line in the file of each row
  bool has_header = false;
  int columns = 0;  // 2 (x,p) or 3 (x,p,logp); 0 if the file holds no row at all

  size_t size() const { return x.size(); }
};

// Parses the text of a CSV file. `file_label` names the file in error messages, which read
// "noise.csv:17: 'abc' is not a number". Throws InputError on the first malformed row; non-finite x
// and p are rejected here, everything about the table as a whole (sum, grid) is left to the caller.
TableCsvRows parse_table_csv(std::string_view text, const std::string& file_label);

enum class NumberSyntax { kValid, kNotANumber, kOutOfRange };

// Parses a whole field as a double: exact (correctly rounded) and independent of the locale, unlike
// strtod and iostreams. Accepts an optional leading '+', and "inf"/"nan" so that callers can reject them
// with a clear message. Values beyond the double range, including non-zero values that would underflow
// to 0, are kOutOfRange: silently turning a tiny probability into 0 would change the table (a zero
// probability facing a positive one is an infinite privacy loss).
NumberSyntax parse_double(std::string_view field, double& value);

}  // namespace noiselearn
