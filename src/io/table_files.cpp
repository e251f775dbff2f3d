#include "io/table_files.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>

#include "core/errors.hpp"
#include "io/atomic_file.hpp"
#include "io/table_csv.hpp"

#ifndef NOISELEARN_VERSION_STRING
#define NOISELEARN_VERSION_STRING "unknown"
#endif

namespace noiselearn {

const char* noiselearn_version() { return NOISELEARN_VERSION_STRING; }

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Keys of table_metadata() that describe the table's structure. A caller's `extra` disagreeing with one
// of them is a bug worth a warning (the table wins); provenance keys are expected to change silently.
constexpr const char* kStructuralKeys[] = {"format", "version", "grid", "support", "tails"};

void refuse_metadata_path(const fs::path& csv_path) {
  if (csv_path.extension() == ".json")
    throw InputError(
        fmt::format("{}: a noise table is named by its .csv file; the .json next to it holds the "
                    "metadata",
                    csv_path.string()));
}

std::string format_table_csv(const NoiseTable& table) {
  fmt::memory_buffer text;
  text.reserve(static_cast<size_t>(table.size()) * 48 + 8);
  fmt::format_to(std::back_inserter(text), "x,p\n");
  // 17 significant digits identify a double uniquely (max_digits10), so the reader gets the same bits.
  for (int64_t i = 0; i < table.size(); ++i)
    fmt::format_to(std::back_inserter(text), "{:.17g},{:.17g}\n", table.x(i), table.p(i));
  return fmt::to_string(text);
}

// Allowed distance between a CSV x and its grid point: the grid tolerance of src/README.md (1e-9 of a step),
// plus the rounding another tool makes when it computes x = origin + i * step far from 0.
double grid_point_tolerance(const Grid& grid) {
  const double magnitude = std::max(std::abs(grid.origin), std::abs(grid.last()));
  return kGridRelativeTolerance * grid.step + 4.0 * std::numeric_limits<double>::epsilon() * magnitude;
}

[[noreturn]] void throw_table_problem(const TableProblem& problem, const std::string& label, const TableCsvRows& rows) {
  if (problem.index)
    throw InputError(fmt::format("{}:{}: {}", label, rows.line[static_cast<size_t>(*problem.index)], problem.message));
  throw InputError(fmt::format("{}: {}", label, problem.message));
}

// Divides p by its sum when the reader asked for it and the sum is off by more than the table tolerance
// but within the requested one; returns the sum divided by. Entries that are not finite or are negative
// are left alone for find_table_problem to report with their line.
std::optional<double> renormalise(std::vector<double>& p, const TableReadOptions& options, const std::string& label) {
  if (!options.renormalise) return std::nullopt;
  for (double v : p)
    if (!std::isfinite(v) || v < 0.0) return std::nullopt;
  const double total = compensated_sum(p);
  const double off = total - 1.0;
  if (std::abs(off) <= kTableSumTolerance) return std::nullopt;
  if (!(std::abs(off) <= options.sum_tolerance))
    throw InputError(
        fmt::format("{}: probabilities sum to {:.17g}, off by {:.3g}: more than the renormalisation "
                    "tolerance {:g}",
                    label, total, off, options.sum_tolerance));
  // Each quotient is correctly rounded, so the new sum is 1 within a few units in the last place.
  for (double& v : p) v /= total;
  return total;
}

// What a renormalised table says about itself: a note for the log, its provenance (kept by every later
// write of the table) and the metadata as read.
void record_renormalisation(LoadedTable& loaded, double total, const TableReadOptions& options) {
  const std::string note = fmt::format(
      "probabilities summed to {:.17g} (off by {:.3g}): renormalised (divided by the sum)", total, total - 1.0);
  loaded.notes.push_back(note);
  TableProvenance& provenance = loaded.table.provenance();
  provenance.parameters["renormalised_from_sum"] = total;
  provenance.note += (provenance.note.empty() ? "" : "; ") + note;
  loaded.metadata["renormalised"] = {{"sum", total}, {"sum_tolerance", options.sum_tolerance}};
}

// ---- metadata file ---------------------------------------------------------------------------------

class MetadataReader {
 public:
  MetadataReader(const json& metadata, std::string label) : metadata_(metadata), label_(std::move(label)) {}

  [[noreturn]] void fail(const std::string& message) const { throw InputError(fmt::format("{}: {}", label_, message)); }

  const json& member(const json& object, const char* key, const std::string& where) const {
    const auto it = object.find(key);
    if (it == object.end()) fail(fmt::format("missing key \"{}{}\"", where, key));
    return *it;
  }

  double number(const json& object, const char* key, const std::string& where) const {
    const json& value = member(object, key, where);
    if (!value.is_number()) fail(fmt::format("\"{}{}\" must be a number, not {}", where, key, value.dump()));
    return value.get<double>();
  }

  void check_format() const {
    if (!metadata_.is_object()) fail("expected a JSON object");
    const auto format = metadata_.find("format");
    if (format == metadata_.end() || *format != kNoiseTableFormat)
      fail(fmt::format("not a noise-table metadata file (\"format\" must be \"{}\")", kNoiseTableFormat));
    const json& version = member(metadata_, "version", "");
    if (!version.is_number_integer()) fail(fmt::format("\"version\" must be an integer, not {}", version.dump()));
    if (version.get<int64_t>() != kNoiseTableFormatVersion)
      fail(fmt::format("format version {} is not supported (this build of noiselearn {} reads version {})",
                       version.dump(), NOISELEARN_VERSION_STRING, kNoiseTableFormatVersion));
  }

  Grid grid() const {
    const json& grid = member(metadata_, "grid", "");
    if (!grid.is_object()) fail(fmt::format("\"grid\" must be an object, not {}", grid.dump()));
    const json& size = member(grid, "size", "grid.");
    if (!size.is_number_integer() || size.get<int64_t>() < 1)
      fail(fmt::format("\"grid.size\" must be a positive integer, not {}", size.dump()));
    Grid result{number(grid, "origin", "grid."), number(grid, "step", "grid."), size.get<int64_t>()};
    try {
      result.validate();
    } catch (const InputError& e) {
      fail(e.what());
    }
    return result;
  }

  SupportKind support() const {
    const json& support = member(metadata_, "support", "");
    if (!support.is_string()) fail(fmt::format("\"support\" must be a string, not {}", support.dump()));
    try {
      return parse_support_kind(support.get<std::string>());
    } catch (const InputError& e) {
      fail(e.what());
    }
  }

  // Optional "tails": {"kind": "geometric", "ratio": r, ...}: the table continues geometrically beyond its grid.
  std::optional<GeometricTails> tails() const {
    const auto it = metadata_.find("tails");
    if (it == metadata_.end() || it->is_null()) return std::nullopt;
    if (!it->is_object()) fail(fmt::format("\"tails\" must be an object, not {}", it->dump()));
    const json& kind = member(*it, "kind", "tails.");
    if (kind != "geometric") fail(fmt::format("\"tails.kind\" must be \"geometric\", not {}", kind.dump()));
    const double ratio = number(*it, "ratio", "tails.");
    if (!(ratio > 0.0 && ratio < 1.0))
      fail(fmt::format("\"tails.ratio\" must be in (0, 1), not {}", it->at("ratio").dump()));
    return GeometricTails{ratio};
  }

  // Provenance keys are optional: a hand-written metadata file may only state the grid and support.
  TableProvenance provenance() const {
    TableProvenance provenance;
    provenance.source = optional_string("source");
    provenance.note = optional_string("note");
    const auto parameters = metadata_.find("parameters");
    if (parameters == metadata_.end()) return provenance;
    if (!parameters->is_object()) fail(fmt::format("\"parameters\" must be an object, not {}", parameters->dump()));
    for (const auto& [name, value] : parameters->items()) {
      // nlohmann writes a non-finite double as null; read it back as NaN rather than refuse our own file.
      if (value.is_null()) {
        provenance.parameters[name] = std::numeric_limits<double>::quiet_NaN();
        continue;
      }
      if (!value.is_number()) fail(fmt::format("\"parameters.{}\" must be a number, not {}", name, value.dump()));
      provenance.parameters[name] = value.get<double>();
    }
    return provenance;
  }

 private:
  std::string optional_string(const char* key) const {
    const auto it = metadata_.find(key);
    if (it == metadata_.end() || it->is_null()) return {};
    if (!it->is_string()) fail(fmt::format("\"{}\" must be a string, not {}", key, it->dump()));
    return it->get<std::string>();
  }

  const json& metadata_;
  std::string label_;
};

json parse_metadata(const fs::path& json_path) {
  const std::string text = read_file(json_path);
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    // A syntax error (parse_error) or a number beyond the double range (out_of_range.406, "1e400"): both are the
    // file's fault. Drop nlohmann's "[json.exception.parse_error.101] " tag; the rest names line and column.
    std::string message = e.what();
    const size_t tag_end = message.find("] ");
    if (tag_end != std::string::npos) message.erase(0, tag_end + 2);
    throw InputError(fmt::format("{}: invalid JSON: {}", json_path.string(), message));
  }
}

// FNV-1a (64 bit) of the CSV bytes, stored in the JSON so that a CSV edited after its JSON was written is
// not read with a certificate that no longer describes it. Not cryptographic: it guards against accidents.
std::string csv_checksum(std::string_view text) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return fmt::format("fnv1a64:{:016x}", hash);
}

// ---- the two ways of reading ------------------------------------------------------------------------

LoadedTable read_with_metadata(TableCsvRows rows, const std::string& csv_label, const fs::path& json_path,
                               const std::string& checksum, const TableReadOptions& options) {
  json metadata = parse_metadata(json_path);
  const auto stored = metadata.find("csv_checksum");
  if (stored != metadata.end() && (!stored->is_string() || stored->get<std::string>() != checksum))
    throw InputError(
        fmt::format("{} does not describe {} (checksum mismatch: the CSV changed after its JSON was written); "
                    "delete {} to read the CSV as a bare table, or regenerate both",
                    json_path.string(), csv_label, json_path.string()));
  const MetadataReader reader(metadata, json_path.string());
  reader.check_format();
  const Grid grid = reader.grid();
  const SupportKind kind = reader.support();
  const std::optional<GeometricTails> tails = reader.tails();
  TableProvenance provenance = reader.provenance();

  const std::string json_label = json_path.string();
  const auto rows_count = static_cast<int64_t>(rows.size());
  if (rows_count > grid.size)
    throw InputError(fmt::format("{}:{}: row {} is beyond the {} grid points declared in {}", csv_label,
                                 rows.line[static_cast<size_t>(grid.size)], grid.size + 1, grid.size, json_label));
  if (rows_count < grid.size)
    throw InputError(
        fmt::format("{}: {} data rows but {} declares {} grid points", csv_label, rows_count, json_label, grid.size));
  const double tolerance = grid_point_tolerance(grid);
  for (int64_t i = 0; i < grid.size; ++i) {
    const double x = rows.x[static_cast<size_t>(i)];
    if (std::abs(x - grid.x(i)) > tolerance)
      throw InputError(fmt::format("{}:{}: x = {:.17g} is not grid point {} (x = {:.17g}) declared in {}", csv_label,
                                   rows.line[static_cast<size_t>(i)], x, i, grid.x(i), json_label));
  }
  if (tails && options.renormalise)
    throw InputError(
        fmt::format("{}: --renormalise does not apply to a table with geometric tails ({})", csv_label, json_label));
  const std::optional<double> renormalised_from = renormalise(rows.p, options, csv_label);
  double tail_mass = 0.0;
  if (tails && std::isfinite(rows.p.front()) && std::isfinite(rows.p.back()))
    tail_mass = (rows.p.front() + rows.p.back()) * tails->ratio / (1.0 - tails->ratio);
  if (auto problem = find_table_problem(grid, rows.p, tail_mass)) throw_table_problem(*problem, csv_label, rows);

  try {
    NoiseTable table(grid, std::move(rows.p), kind, std::move(provenance), tails);
    LoadedTable loaded{std::move(table), std::move(metadata), {}};
    if (renormalised_from) record_renormalisation(loaded, *renormalised_from, options);
    return loaded;
  } catch (const InputError& e) {
    // Only the support kind can still be wrong here: the metadata declares what the data is not.
    throw InputError(fmt::format("{} (with {}): {}", csv_label, json_label, e.what()));
  }
}

LoadedTable read_bare(TableCsvRows rows, const std::string& csv_label, const fs::path& csv_path,
                      const TableReadOptions& options) {
  const size_t n = rows.size();
  if (n == 1)
    throw InputError(
        fmt::format("{}:{}: only one data row; inferring the grid step needs at least two (or a {} "
                    "with the grid)",
                    csv_label, rows.line[0], metadata_path_for(csv_path).filename().string()));
  for (size_t i = 1; i < n; ++i)
    if (!(rows.x[i] > rows.x[i - 1]))
      throw InputError(
          fmt::format("{}:{}: x = {:.17g} does not increase (previous x = {:.17g}); x must be strictly "
                      "increasing",
                      csv_label, rows.line[i], rows.x[i], rows.x[i - 1]));

  // The first and last rows fix the grid; every row in between must lie on it.
  const Grid grid{rows.x.front(), (rows.x.back() - rows.x.front()) / static_cast<double>(n - 1),
                  static_cast<int64_t>(n)};
  try {
    grid.validate();
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: cannot infer a grid: {}", csv_label, e.what()));
  }
  const double tolerance = grid_point_tolerance(grid);
  for (size_t i = 1; i + 1 < n; ++i) {
    const double expected = grid.x(static_cast<int64_t>(i));
    if (std::abs(rows.x[i] - expected) > tolerance)
      throw InputError(
          fmt::format("{}:{}: x = {:.17g} is off the uniform grid through the first and last rows "
                      "(expected {:.17g}, step {:.17g})",
                      csv_label, rows.line[i], rows.x[i], expected, grid.step));
  }
  const std::optional<double> renormalised_from = renormalise(rows.p, options, csv_label);
  if (auto problem = find_table_problem(grid, rows.p)) throw_table_problem(*problem, csv_label, rows);

  const SupportKind kind = NoiseTable::infer_support_kind(grid, rows.p);
  std::string inferred = fmt::format("inferred grid: {}; support: {}", describe(grid), to_string(kind));
  TableProvenance provenance{"csv import", {}, fmt::format("imported from {}; {}", csv_label, inferred)};
  NoiseTable table(grid, std::move(rows.p), kind, std::move(provenance));
  LoadedTable loaded{std::move(table), json::object(), {std::move(inferred)}};
  if (renormalised_from) record_renormalisation(loaded, *renormalised_from, options);
  return loaded;
}

}  // namespace

fs::path metadata_path_for(const fs::path& csv_path) {
  fs::path json_path = csv_path;
  json_path.replace_extension(".json");
  return json_path;
}

json table_metadata(const NoiseTable& table) {
  const Grid& grid = table.grid();
  const TableProvenance& provenance = table.provenance();
  json parameters = json::object();
  for (const auto& [name, value] : provenance.parameters) parameters[name] = value;
  json metadata{
      {"format", kNoiseTableFormat},
      {"version", kNoiseTableFormatVersion},
      {"grid", {{"origin", grid.origin}, {"step", grid.step}, {"size", grid.size}}},
      {"support", to_string(table.support_kind())},
      {"source", provenance.source},
      {"parameters", std::move(parameters)},
      {"note", provenance.note},
      {"noiselearn_version", NOISELEARN_VERSION_STRING},
  };
  if (table.tails())
    metadata["tails"] = {{"kind", "geometric"},
                         {"ratio", table.tails()->ratio},
                         {"left_mass", table.left_tail_mass()},
                         {"right_mass", table.right_tail_mass()},
                         {"meaning",
                          "beyond each end of the grid, p continues as p_end * ratio^k at x_end +- k * step, "
                          "k = 1, 2, ...; left_mass and right_mass are those sums"}};
  return metadata;
}

void write_noise_table(const NoiseTable& table, const fs::path& csv_path, const json& extra, bool overwrite) {
  refuse_metadata_path(csv_path);
  if (!extra.is_null() && !extra.is_object())
    throw std::invalid_argument("write_noise_table: extra metadata must be a JSON object");
  const fs::path json_path = metadata_path_for(csv_path);

  json metadata = extra.is_null() ? json::object() : extra;
  const json own = table_metadata(table);
  for (const auto& [key, value] : own.items()) {
    const auto given = metadata.find(key);
    const bool structural =
        std::find(std::begin(kStructuralKeys), std::end(kStructuralKeys), key) != std::end(kStructuralKeys);
    if (structural && given != metadata.end() && *given != value)
      spdlog::warn("{}: metadata \"{}\" given as {} disagrees with the table; writing the table's {}",
                   json_path.string(), key, given->dump(), value.dump());
    metadata[key] = value;
  }
  // Invalid UTF-8 in a user-supplied note must not lose the table: replace it rather than throw (dump below).

  // Stage both before committing either, so that a refusal or a failure leaves both files as they were.
  // The CSV is committed first: if the process dies between the two renames of a first write, what is
  // left is a bare CSV (read without a certificate), never metadata without its table.
  const std::string csv_text = format_table_csv(table);
  metadata["csv_checksum"] = csv_checksum(csv_text);
  const std::string final_metadata_text = metadata.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  StagedFile staged_csv(csv_path, csv_text, overwrite);
  StagedFile staged_metadata(json_path, final_metadata_text, overwrite);
  staged_csv.commit();
  staged_metadata.commit();
  spdlog::debug("wrote {} ({} rows) and {}", csv_path.string(), table.size(), json_path.string());
}

LoadedTable read_noise_table(const fs::path& csv_path, const TableReadOptions& options) {
  refuse_metadata_path(csv_path);
  const std::string csv_label = csv_path.string();
  const std::string text = read_file(csv_path);
  TableCsvRows rows = parse_table_csv(text, csv_label);
  if (rows.size() == 0) throw InputError(fmt::format("{}: no data rows", csv_label));

  const fs::path json_path = metadata_path_for(csv_path);
  std::error_code ignored;
  if (fs::status(json_path, ignored).type() == fs::file_type::not_found)
    return read_bare(std::move(rows), csv_label, csv_path, options);
  return read_with_metadata(std::move(rows), csv_label, json_path, csv_checksum(text), options);
}

TableReader table_file_reader(const std::filesystem::path& relative_to) {
  return [relative_to](const std::string& path) -> std::shared_ptr<const NoiseTable> {
    std::filesystem::path file(path);
    if (file.is_relative() && !relative_to.empty()) file = relative_to / file;
    return std::make_shared<const NoiseTable>(read_noise_table(file).table);
  };
}

}  // namespace noiselearn
