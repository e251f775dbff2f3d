#include "sampler/sampler_table_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/errors.hpp"
#include "io/checksum.hpp"

namespace noiselearn::sampler {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The tolerances of the full reader (core/grid.hpp, core/noise_table.hpp), repeated because the sampler does
// not link noiselearn_core.
constexpr double kGridRelativeTolerance = 1e-9;
constexpr double kTableSumTolerance = 1e-12;
constexpr size_t kMaxGridPoints = 100'000'001;

std::string read_whole_file(const fs::path& path) {
  std::error_code error;
  if (fs::is_directory(path, error))
    throw InputError(fmt::format("{}: is a directory, not a noise table", path.string()));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot be read", path.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool parse_number(std::string_view field, double& value) {
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  if (field.empty()) return false;
  const auto result = std::from_chars(field.data(), field.data() + field.size(), value, std::chars_format::general);
  return result.ec == std::errc() && result.ptr == field.data() + field.size();
}

struct CsvRows {
  std::vector<double> x, p;
  std::vector<int64_t> line;
};

CsvRows parse_csv(std::string_view text, const std::string& label) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  CsvRows rows;
  size_t columns = 0;
  int64_t line_number = 0;
  size_t start = 0;
  std::vector<std::string_view> fields;
  while (start < text.size()) {
    const size_t newline = text.find('\n', start);
    std::string_view line =
        trim(text.substr(start, newline == std::string_view::npos ? std::string_view::npos : newline - start));
    start = newline == std::string_view::npos ? text.size() : newline + 1;
    ++line_number;
    if (line.empty() || line.front() == '#') continue;
    fields.clear();
    for (size_t from = 0;;) {
      const size_t comma = line.find(',', from);
      fields.push_back(
          trim(line.substr(from, comma == std::string_view::npos ? std::string_view::npos : comma - from)));
      if (comma == std::string_view::npos) break;
      from = comma + 1;
    }
    double x = 0.0, p = 0.0;
    if (columns == 0) {
      if (fields.size() != 2 && fields.size() != 3)
        throw InputError(fmt::format("{}:{}: expected 2 columns (x,p) or 3 (x,p,logp), found {}", label, line_number,
                                     fields.size()));
      columns = fields.size();
      if (!parse_number(fields[0], x) && !parse_number(fields[1], p)) continue;  // the header
    }
    if (fields.size() != columns)
      throw InputError(fmt::format("{}:{}: expected {} columns, found {}", label, line_number, columns, fields.size()));
    if (!parse_number(fields[0], x) || !std::isfinite(x))
      throw InputError(fmt::format("{}:{}: x '{}' is not a finite number", label, line_number, fields[0]));
    // from_chars reports an underflow to 0 as out of range: a tiny probability is refused, never zeroed.
    if (!parse_number(fields[1], p) || !std::isfinite(p))
      throw InputError(fmt::format("{}:{}: probability '{}' is not a finite double", label, line_number, fields[1]));
    if (p < 0.0) throw InputError(fmt::format("{}:{}: probability {} is negative", label, line_number, fields[1]));
    rows.x.push_back(x);
    rows.p.push_back(p);
    rows.line.push_back(line_number);
  }
  if (rows.p.empty()) throw InputError(fmt::format("{}: no data rows", label));
  if (rows.p.size() > kMaxGridPoints) throw InputError(fmt::format("{}: more than {} rows", label, kMaxGridPoints));
  return rows;
}

double json_number(const json& object, const char* key, const std::string& label) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number()) throw InputError(fmt::format("{}: \"{}\" must be a number", label, key));
  return it->get<double>();
}

}  // namespace

bool SamplerTable::is_integer_grid() const { return std::floor(origin) == origin && std::floor(step) == step; }

SamplerTable read_sampler_table(const fs::path& csv_path, double renormalise_within) {
  const std::string label = csv_path.string();
  if (csv_path.extension() == ".json")
    throw InputError(
        fmt::format("{}: a noise table is named by its .csv file; the .json next to it holds the metadata", label));
  const std::string text = read_whole_file(csv_path);
  CsvRows rows = parse_csv(text, label);
  SamplerTable table;
  const size_t n = rows.p.size();

  fs::path json_path = csv_path;
  json_path.replace_extension(".json");
  std::error_code ignored;
  if (fs::status(json_path, ignored).type() != fs::file_type::not_found) {
    const std::string json_label = json_path.string();
    try {
      table.metadata = json::parse(read_whole_file(json_path));
    } catch (const json::exception& e) {
      // A syntax error (parse_error) or a number beyond the double range (out_of_range.406, "1e400").
      throw InputError(fmt::format("{}: invalid JSON: {}", json_label, e.what()));
    }
    // Compared as JSON values, not converted with value(): a "format" that is not a string, or a "version" that is
    // not a number, is a file of something else, not a conversion error (nor, beyond int's range, undefined).
    const auto format = table.metadata.find("format");
    if (!table.metadata.is_object() || format == table.metadata.end() || *format != "noiselearn-noise-table")
      throw InputError(fmt::format(
          "{}: not a noise-table metadata file (\"format\" must be \"noiselearn-noise-table\")", json_label));
    const auto version = table.metadata.find("version");
    if (version == table.metadata.end() || !version->is_number() || version->get<double>() != 1.0)
      throw InputError(fmt::format("{}: format version is not 1", json_label));
    const auto checksum = table.metadata.find("csv_checksum");
    if (checksum != table.metadata.end() &&
        (!checksum->is_string() || checksum->get<std::string>() != fnv1a64_checksum(text)))
      throw InputError(
          fmt::format("{} does not describe {} (checksum mismatch: the CSV changed after its JSON was written)",
                      json_label, label));
    if (const auto tails = table.metadata.find("tails"); tails != table.metadata.end() && !tails->is_null())
      throw InputError(
          fmt::format("{}: the table has geometric tails (infinite support); the sampler draws from finite "
                      "tables only",
                      json_label));
    const auto grid = table.metadata.find("grid");
    if (grid == table.metadata.end() || !grid->is_object())
      throw InputError(fmt::format("{}: missing \"grid\"", json_label));
    table.origin = json_number(*grid, "origin", json_label);
    table.step = json_number(*grid, "step", json_label);
    const double size = json_number(*grid, "size", json_label);
    if (size != static_cast<double>(n))
      throw InputError(fmt::format("{}: {} data rows but {} declares {} grid points", label, n, json_label, size));
  } else {
    if (n < 2) throw InputError(fmt::format("{}: one data row; a bare CSV needs two to infer its grid", label));
    table.origin = rows.x.front();
    table.step = (rows.x.back() - rows.x.front()) / static_cast<double>(n - 1);
  }
  if (!std::isfinite(table.origin) || !(table.step > 0.0) || !std::isfinite(table.step))
    throw InputError(fmt::format("{}: grid origin {} and step {} are not a uniform increasing grid", label,
                                 table.origin, table.step));
  const double magnitude = std::max(std::abs(table.origin), std::abs(table.x(n - 1)));
  const double tolerance =
      kGridRelativeTolerance * table.step + 4.0 * std::numeric_limits<double>::epsilon() * magnitude;
  for (size_t i = 0; i < n; ++i)
    if (std::abs(rows.x[i] - table.x(i)) > tolerance)
      throw InputError(fmt::format("{}:{}: x = {:.17g} is not grid point {} (x = {:.17g})", label, rows.line[i],
                                   rows.x[i], i, table.x(i)));

  long double sum = 0.0L;
  for (double p : rows.p) sum += p;
  const double off = std::abs(static_cast<double>(sum - 1.0L));
  if (off > kTableSumTolerance && off <= renormalise_within) {
    for (double& p : rows.p) p = static_cast<double>(p / sum);
    table.metadata["renormalised"] = {{"sum", static_cast<double>(sum)}, {"sum_tolerance", renormalise_within}};
  } else if (!(off <= kTableSumTolerance)) {
    throw InputError(fmt::format("{}: probabilities sum to {:.17g}, not 1 within {:g}", label, static_cast<double>(sum),
                                 std::max(kTableSumTolerance, renormalise_within)));
  }
  table.probabilities = std::move(rows.p);
  return table;
}

}  // namespace noiselearn::sampler
