#include "io/table_csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <system_error>

#include "core/errors.hpp"

namespace noiselearn {

namespace {

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
constexpr const char* kColumnNames[] = {"x", "p", "logp"};

std::string_view trim(std::string_view text) {
  const auto is_blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!text.empty() && is_blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_blank(text.back())) text.remove_suffix(1);
  return text;
}

void split_fields(std::string_view line, std::vector<std::string_view>& fields) {
  fields.clear();
  size_t start = 0;
  for (;;) {
    const size_t comma = line.find(',', start);
    if (comma == std::string_view::npos) {
      fields.push_back(trim(line.substr(start)));
      return;
    }
    fields.push_back(trim(line.substr(start, comma - start)));
    start = comma + 1;
  }
}

// Quotes a field for an error message, shortened so that a binary file does not flood the terminal.
std::string quoted(std::string_view field) {
  constexpr size_t kLongest = 40;
  if (field.size() <= kLongest) return fmt::format("'{}'", field);
  return fmt::format("'{}...'", field.substr(0, kLongest));
}

bool looks_numeric(std::string_view field) {
  double ignored = 0.0;
  return parse_double(field, ignored) != NumberSyntax::kNotANumber;
}

class RowReader {
 public:
  explicit RowReader(const std::string& file_label) : label_(file_label) {}

  [[noreturn]] void fail(int64_t line, const std::string& message) const {
    throw InputError(fmt::format("{}:{}: {}", label_, line, message));
  }

  double number(std::string_view field, int column, int64_t line) const {
    double value = 0.0;
    switch (parse_double(field, value)) {
      case NumberSyntax::kValid:
        return value;
      case NumberSyntax::kOutOfRange:
        fail(line, fmt::format("{} is outside the range of double precision", quoted(field)));
      case NumberSyntax::kNotANumber:
        if (field.empty()) fail(line, fmt::format("column {} ({}) is empty", column + 1, kColumnNames[column]));
        fail(line, fmt::format("{} is not a number", quoted(field)));
    }
    fail(line, "unreachable");
  }

  void read_row(const std::vector<std::string_view>& fields, int64_t line, TableCsvRows& rows) const {
    const double x = number(fields[0], 0, line);
    if (!std::isfinite(x)) fail(line, fmt::format("x = {} is not finite", quoted(fields[0])));
    const double p = number(fields[1], 1, line);
    if (!std::isfinite(p)) fail(line, fmt::format("probability {} is not finite", quoted(fields[1])));
    if (fields.size() == 3) {
      // log 0 = -inf is a legitimate log-probability; NaN and +inf are not.
      const double logp = number(fields[2], 2, line);
      if (std::isnan(logp) || logp == HUGE_VAL)
        fail(line, fmt::format("logp {} is not a log-probability (a number or -inf)", quoted(fields[2])));
    }
    rows.x.push_back(x);
    rows.p.push_back(p);
    rows.line.push_back(line);
  }

  // The first non-blank, non-comment line fixes the number of columns and tells whether there is a header.
  void read_first(const std::vector<std::string_view>& fields, int64_t line, TableCsvRows& rows) const {
    if (fields.size() != 2 && fields.size() != 3)
      fail(line, fmt::format("expected 2 columns (x,p) or 3 (x,p,logp), found {}", fields.size()));
    rows.columns = static_cast<int>(fields.size());
    rows.has_header = std::none_of(fields.begin(), fields.end(), looks_numeric);
    if (!rows.has_header) {
      read_row(fields, line, rows);
      return;
    }
    // Two columns are x,p whatever a foreign tool calls them; a third must say that it is logp, so
    // that e.g. "x,p,cdf" is not taken for a table with an ignorable column.
    if (rows.columns == 3) {
      std::string third(fields[2]);
      third.erase(std::remove(third.begin(), third.end(), '"'), third.end());
      std::transform(third.begin(), third.end(), third.begin(), [](unsigned char c) { return std::tolower(c); });
      if (third != "logp")
        fail(line, fmt::format("third column {} is not logp (noise tables have columns x,p and optionally logp)",
                               quoted(fields[2])));
    }
  }

 private:
  const std::string& label_;
};

}  // namespace

NumberSyntax parse_double(std::string_view field, double& value) {
  std::string_view digits = field;
  // std::from_chars rejects a leading '+', which spreadsheets and some printf formats produce.
  if (!digits.empty() && digits.front() == '+') {
    digits.remove_prefix(1);
    if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) return NumberSyntax::kNotANumber;
  }
  if (digits.empty()) return NumberSyntax::kNotANumber;
  const char* const end = digits.data() + digits.size();
  double parsed = 0.0;
  const auto result = std::from_chars(digits.data(), end, parsed, std::chars_format::general);
  if (result.ec == std::errc::result_out_of_range) return NumberSyntax::kOutOfRange;
  if (result.ec != std::errc() || result.ptr != end) return NumberSyntax::kNotANumber;
  value = parsed;
  return NumberSyntax::kValid;
}

TableCsvRows parse_table_csv(std::string_view text, const std::string& file_label) {
  if (text.substr(0, kByteOrderMark.size()) == kByteOrderMark) text.remove_prefix(kByteOrderMark.size());

  const RowReader reader(file_label);
  TableCsvRows rows;
  std::vector<std::string_view> fields;
  int64_t line_number = 0;
  size_t start = 0;
  while (start < text.size()) {
    const size_t newline = text.find('\n', start);
    std::string_view line =
        text.substr(start, newline == std::string_view::npos ? std::string_view::npos : newline - start);
    start = newline == std::string_view::npos ? text.size() : newline + 1;
    ++line_number;

    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    line = trim(line);
    if (line.empty() || line.front() == '#') continue;

    split_fields(line, fields);
    if (rows.columns == 0) {
      reader.read_first(fields, line_number, rows);
      continue;
    }
    if (static_cast<int>(fields.size()) != rows.columns)
      reader.fail(line_number, fmt::format("expected {} columns, found {}", rows.columns, fields.size()));
    reader.read_row(fields, line_number, rows);
  }
  return rows;
}

}  // namespace noiselearn
