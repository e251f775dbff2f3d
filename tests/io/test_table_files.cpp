#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <unistd.h>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "io/scratch_directory.hpp"
#include "io/table_csv.hpp"
#include "io/table_files.hpp"

using namespace noiselearn;
using Catch::Matchers::Contains;
using nlohmann::json;
using noiselearn::testing::get_file;
using noiselearn::testing::input_error_of;
using noiselearn::testing::put_file;
using noiselearn::testing::ScratchDirectory;
using Entries = std::set<std::string>;

namespace {

uint64_t bits_of(double value) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// A table whose every number is hard to print: a grid step that is not a short decimal, an origin that is
// not either, the smallest denormal, the largest denormal, the smallest normal and 0.1 + 0.2.
NoiseTable awkward_table() {
  const Grid grid{-1.0 / 3.0, 0.1 + 0.2, 7};
  std::vector<double> p = {std::numeric_limits<double>::denorm_min(),
                           2.225073858507201e-308,  // largest denormal
                           std::numeric_limits<double>::min(),
                           0.1 + 0.2,
                           1.0 / 3.0,
                           1e-300,
                           0.0};
  p[6] = 1.0 - (p[3] + p[4]);
  TableProvenance provenance{"train", {{"sigma", 0.1 + 0.2}, {"epochs", 1000.0}}, "learned on an awkward grid"};
  return NoiseTable(grid, p, SupportKind::kGeneral, provenance);
}

// Two-sided geometric weights on a symmetric grid, mirrored exactly so that the support is symmetric.
std::vector<double> mirrored_probabilities(int64_t size) {
  std::vector<double> weights(static_cast<size_t>(size));
  for (int64_t i = 0; i < size; ++i) weights[static_cast<size_t>(i)] = std::exp(-0.05 * std::abs(i - size / 2));
  const double total = compensated_sum(weights);
  for (double& w : weights) w /= total;
  return weights;
}

}  // namespace

TEST_CASE("writing then reading a table gives back the same bits", "[table_files]") {
  const ScratchDirectory scratch;
  const NoiseTable original = awkward_table();
  write_noise_table(original, scratch / "noise.csv", json::object(), false);
  CHECK(scratch.entries() == Entries{"noise.csv", "noise.json"});

  const LoadedTable loaded = read_noise_table(scratch / "noise.csv");
  const NoiseTable& table = loaded.table;
  CHECK(bits_of(table.grid().origin) == bits_of(original.grid().origin));
  CHECK(bits_of(table.grid().step) == bits_of(original.grid().step));
  CHECK(table.grid().size == original.grid().size);
  for (int64_t i = 0; i < original.size(); ++i) {
    INFO("entry " << i << ": " << original.p(i));
    CHECK(bits_of(table.p(i)) == bits_of(original.p(i)));
  }
  CHECK(table.support_kind() == SupportKind::kGeneral);
  CHECK(table.provenance().source == "train");
  CHECK(table.provenance().note == "learned on an awkward grid");
  CHECK(table.provenance().parameters == original.provenance().parameters);
  CHECK(loaded.notes.empty());

  // The CSV x column is grid.x(i) to the bit, and nlohmann's shortest-round-trip doubles keep the grid exact.
  const TableCsvRows rows = parse_table_csv(get_file(scratch / "noise.csv"), "noise.csv");
  for (int64_t i = 0; i < original.size(); ++i)
    CHECK(bits_of(rows.x[static_cast<size_t>(i)]) == bits_of(original.x(i)));
  const json metadata = json::parse(get_file(scratch / "noise.json"));
  CHECK(bits_of(metadata["grid"]["origin"].get<double>()) == bits_of(-1.0 / 3.0));
  CHECK(bits_of(metadata["grid"]["step"].get<double>()) == bits_of(0.1 + 0.2));
}

TEST_CASE("a table whose grid has a single point round-trips with its metadata", "[table_files]") {
  // A point mass is a valid table; only a bare CSV needs two rows (to infer the step).
  const ScratchDirectory scratch;
  write_noise_table(NoiseTable(Grid{0.0, 0.5, 1}, {1.0}), scratch / "point.csv", nullptr, false);
  const LoadedTable loaded = read_noise_table(scratch / "point.csv");
  CHECK(loaded.table.size() == 1);
  CHECK(loaded.table.grid().step == 0.5);
}

TEST_CASE("the metadata file holds the table's description merged with the caller's", "[table_files]") {
  const ScratchDirectory scratch;
  const NoiseTable table = awkward_table();
  json extra;
  extra["utility"] = {{"variance", 1.25}};
  extra["certificate"] = {{"epsilon", 1.0}, {"n", 8}};
  extra["grid"] = {{"origin", 0.0}, {"step", 1.0}, {"size", 3}};  // wrong: the table's own grid must win
  extra["note"] = "stale note";
  write_noise_table(table, scratch / "foo.csv", extra, false);
  CHECK(scratch.entries() == Entries{"foo.csv", "foo.json"});

  const json metadata = json::parse(get_file(scratch / "foo.json"));
  CHECK(metadata["format"] == "noiselearn-noise-table");
  CHECK(metadata["version"] == 1);
  CHECK(metadata["grid"] == json{{"origin", -1.0 / 3.0}, {"step", 0.1 + 0.2}, {"size", 7}});
  CHECK(metadata["support"] == "general");
  CHECK(metadata["source"] == "train");
  CHECK(metadata["parameters"] == json{{"sigma", 0.1 + 0.2}, {"epochs", 1000.0}});
  CHECK(metadata["note"] == "learned on an awkward grid");
  CHECK(metadata["noiselearn_version"].is_string());
  CHECK(metadata["utility"]["variance"] == 1.25);
  CHECK(metadata["certificate"]["n"] == 8);
  json expected = table_metadata(table);
  expected["utility"] = extra["utility"];
  expected["certificate"] = extra["certificate"];
  expected["csv_checksum"] = metadata["csv_checksum"];  // checked in its own test
  CHECK(metadata == expected);                          // nothing else was written

  // The reader returns the whole file, extra keys included.
  CHECK(read_noise_table(scratch / "foo.csv").metadata == metadata);
  CHECK_THROWS_AS(write_noise_table(table, scratch / "bar.csv", json::array(), false), std::invalid_argument);
}

TEST_CASE("existing table files are replaced only when overwriting is asked for", "[table_files]") {
  const ScratchDirectory scratch;
  const auto csv = scratch / "noise.csv";
  const NoiseTable first(Grid{-1.0, 1.0, 3}, {0.25, 0.5, 0.25});
  const NoiseTable second(Grid{-1.0, 1.0, 3}, {0.125, 0.75, 0.125});
  write_noise_table(first, csv, nullptr, false);
  const std::string csv_before = get_file(csv), json_before = get_file(scratch / "noise.json");

  CHECK_THAT(input_error_of([&] { write_noise_table(second, csv, nullptr, false); }),
             Contains("refusing to overwrite existing file") && Contains("noise.csv") && Contains("--force"));
  CHECK(get_file(csv) == csv_before);
  CHECK(get_file(scratch / "noise.json") == json_before);

  SECTION("a refusal for the metadata file alone writes neither file") {
    std::filesystem::remove(csv);
    CHECK_THAT(input_error_of([&] { write_noise_table(second, csv, nullptr, false); }), Contains("noise.json"));
    CHECK(scratch.entries() == Entries{"noise.json"});
  }
  SECTION("with overwriting both files are replaced") {
    write_noise_table(second, csv, nullptr, true);
    CHECK(read_noise_table(csv).table.probabilities() == second.probabilities());
    CHECK(scratch.entries() == Entries{"noise.csv", "noise.json"});
  }
}

TEST_CASE("a failed table write changes neither file and leaves no temporary", "[table_files]") {
  const ScratchDirectory scratch;
  const auto csv = scratch / "noise.csv";
  const NoiseTable table(Grid{-1.0, 1.0, 3}, {0.25, 0.5, 0.25});

  SECTION("the metadata path is a directory") {
    put_file(csv, "x,p\n0,1\n");
    std::filesystem::create_directory(scratch / "noise.json");
    CHECK_THAT(input_error_of([&] { write_noise_table(table, csv, nullptr, true); }), Contains("noise.json"));
    CHECK(get_file(csv) == "x,p\n0,1\n");  // the CSV was staged but must not have been committed
    CHECK(scratch.entries() == Entries{"noise.csv", "noise.json"});
  }
  SECTION("the parent directory is a file") {
    put_file(scratch / "run", "not a directory");
    CHECK_THAT(input_error_of([&] { write_noise_table(table, scratch / "run/noise.csv", nullptr, true); }),
               Contains("run"));
    CHECK(scratch.entries() == Entries{"run"});
  }
  SECTION("a path ending in .json would collide with the metadata") {
    CHECK_THAT(input_error_of([&] { write_noise_table(table, scratch / "noise.json", nullptr, true); }),
               Contains("noise.json"));
    CHECK_THAT(input_error_of([&] { read_noise_table(scratch / "noise.json"); }), Contains(".csv"));
    CHECK(scratch.entries().empty());
  }
}

TEST_CASE("a bare CSV from another tool is read with or without a header", "[table_files]") {
  const ScratchDirectory scratch;
  const auto csv = scratch / "imported.csv";
  const std::vector<double> expected = {0.125, 0.25, 0.25, 0.25, 0.125};

  SECTION("header") { put_file(csv, "x,p\n-1,0.125\n-0.5,0.25\n0,0.25\n0.5,0.25\n1,0.125\n"); }
  SECTION("no header") { put_file(csv, "-1,0.125\n-0.5,0.25\n0,0.25\n0.5,0.25\n1,0.125\n"); }
  SECTION("CRLF, comments, blank lines, spaces, a byte-order mark and a trailing line without newline") {
    put_file(csv,
             "\xEF\xBB\xBF# exported from a notebook\r\n\r\nvalue , probability\r\n-1 , 0.125\r\n"
             "  # a comment between rows\r\n-0.5,\t0.25\r\n0,0.25\r\n\r\n+0.5,0.25\r\n1,1.25e-1");
  }
  SECTION("a third column logp") {
    put_file(csv,
             "x,p,logp\n-1,0.125,-2.0794415416798357\n-0.5,0.25,-1.3862943611198906\n0,0.25,-1.386\n"
             "0.5,0.25,-1.386\n1,0.125,-2.079\n");
  }

  const LoadedTable loaded = read_noise_table(csv);
  CHECK(loaded.table.grid().origin == -1.0);
  CHECK(loaded.table.grid().step == 0.5);
  CHECK(loaded.table.grid().size == 5);
  CHECK(loaded.table.probabilities() == expected);
  CHECK(loaded.table.support_kind() == SupportKind::kSymmetric);
  CHECK(loaded.table.provenance().source == "csv import");
  CHECK(loaded.metadata == json::object());
  CHECK(loaded.notes == std::vector<std::string>{"inferred grid: 5 points, step 0.5, [-1, 1]; support: symmetric"});
}

TEST_CASE("the grid and support kind of a bare CSV are inferred", "[table_files]") {
  const ScratchDirectory scratch;
  const auto csv = scratch / "noise.csv";

  SECTION("symmetric: 601 points written with short decimals, which are only approximately on the grid") {
    const std::vector<double> p = mirrored_probabilities(601);
    std::string text = "x,p\n";
    for (int i = 0; i < 601; ++i) text += fmt::format("{:.10g},{:.17g}\n", -3.0 + 0.01 * i, p[static_cast<size_t>(i)]);
    put_file(csv, text);
    const LoadedTable loaded = read_noise_table(csv);
    CHECK(loaded.notes ==
          std::vector<std::string>{"inferred grid: 601 points, step 0.01, [-3, 3]; support: symmetric"});
    CHECK(loaded.table.grid().step == Approx(0.01).epsilon(1e-15));
    CHECK(loaded.table.probabilities() == p);
  }
  SECTION("one-sided: no mass below 0") {
    put_file(csv, "0,0.5\n1,0.25\n2,0.125\n3,0.125\n");
    const LoadedTable loaded = read_noise_table(csv);
    CHECK(loaded.table.support_kind() == SupportKind::kOneSided);
    CHECK(loaded.notes == std::vector<std::string>{"inferred grid: 4 points, step 1, [0, 3]; support: one-sided"});
  }
  SECTION("one-sided: a grid reaching below 0 with zero mass there") {
    put_file(csv, "-2,0\n-1,0\n0,0.5\n1,0.5\n");
    CHECK(read_noise_table(csv).table.support_kind() == SupportKind::kOneSided);
  }
  SECTION("general: a symmetric grid with lopsided probabilities") {
    put_file(csv, "-1,0.5\n0,0.25\n1,0.25\n");
    const LoadedTable loaded = read_noise_table(csv);
    CHECK(loaded.table.support_kind() == SupportKind::kGeneral);
    CHECK(loaded.notes == std::vector<std::string>{"inferred grid: 3 points, step 1, [-1, 1]; support: general"});
  }
}

TEST_CASE("a malformed CSV is an InputError naming the file and the line of the first problem", "[table_files]") {
  struct Case {
    const char* what;
    const char* contents;
    int line;  // 0: a problem of the whole file, reported without a line
    const char* message;
  };
  const Case cases[] = {
      {"not a number", "x,p\n0,0.5\nabc,0.5\n", 3, "'abc' is not a number"},
      {"not a number, CRLF", "x,p\r\n0,0.5\r\nabc,0.5\r\n", 3, "'abc' is not a number"},
      {"not a number on the first line", "0.1.2,0.5\n1,0.5\n", 1, "'0.1.2' is not a number"},
      {"too many columns", "x,p\n0,0.5\n1,0.25,0.25,0\n", 3, "expected 2 columns, found 4"},
      {"too few columns", "x,p\n0,0.5\n1\n", 3, "expected 2 columns, found 1"},
      {"a single column file", "# x only\n0.5\n", 2, "expected 2 columns (x,p) or 3 (x,p,logp), found 1"},
      {"an empty field", "x,p\n0,\n1,1\n", 2, "column 2 (p) is empty"},
      {"NaN probability", "x,p\n0,0.5\n1,nan\n", 3, "probability 'nan' is not finite"},
      {"infinite x", "x,p\n-inf,0.5\n1,0.5\n", 2, "x = '-inf' is not finite"},
      {"underflowing probability", "x,p\n0,1e-400\n1,1\n", 2, "'1e-400' is outside the range of double precision"},
      {"negative probability", "# comment\nx,p\n0,0.6\n1,-0.1\n2,0.5\n", 4, "is negative"},
      {"a NaN log-probability", "x,p,logp\n0,0.5,nan\n1,0.5,-0.69\n", 2, "logp 'nan' is not a log-probability"},
      {"a third column that is not logp", "x,p,cdf\n0,0.5,0.5\n1,0.5,1\n", 1, "third column 'cdf' is not logp"},
      {"x not increasing", "x,p\n0,0.25\n1,0.25\n1,0.25\n2,0.25\n", 4, "x must be strictly increasing"},
      {"x off the uniform grid", "0,0.25\n1,0.25\n2.5,0.25\n3,0.25\n", 3, "off the uniform grid"},
      {"a single row", "x,p\n\n0,1\n", 3, "only one data row"},
      {"sum not 1", "x,p\n0,0.5\n1,0.49\n", 0, "probabilities sum to 0.98999999999999999, not 1 (tolerance 1e-12)"},
      {"an empty file", "", 0, "no data rows"},
      {"a header only", "x,p\r\n", 0, "no data rows"},
      {"comments only", "# nothing\n\n# here\n", 0, "no data rows"},
  };
  const ScratchDirectory scratch;
  const auto csv = scratch / "noise.csv";
  for (const Case& c : cases) {
    INFO(c.what);
    put_file(csv, c.contents);
    const std::string message = input_error_of([&] { read_noise_table(csv); });
    const std::string where = c.line > 0 ? fmt::format("noise.csv:{}: ", c.line) : std::string("noise.csv: ");
    CHECK_THAT(message, Contains(where) && Contains(c.message));
    CHECK(message.find('\n') == std::string::npos);  // one line, as the CLI prints it
    CHECK(message.find('\r') == std::string::npos);
  }
}

TEST_CASE("metadata that disagrees with the CSV is rejected", "[table_files]") {
  const ScratchDirectory scratch;
  const auto csv = scratch / "noise.csv";
  const auto json_path = scratch / "noise.json";
  // Mirrored probabilities on [-2, 2]: a valid symmetric table.
  write_noise_table(NoiseTable(Grid{-2.0, 1.0, 5}, {0.0625, 0.25, 0.375, 0.25, 0.0625}), csv, nullptr, false);
  json metadata = json::parse(get_file(json_path));
  // These cases edit the CSV or the grid on purpose to reach the other checks: drop the checksum, as a JSON
  // written by another tool (or an older noiselearn) would not have it. The checksum has its own test.
  metadata.erase("csv_checksum");
  put_file(json_path, metadata.dump(2));
  const auto rewrite = [&](const json& changed) { put_file(json_path, changed.dump(2)); };
  const auto error = [&] { return input_error_of([&] { read_noise_table(csv); }); };

  SECTION("the origin is shifted: the first row is off the grid") {
    metadata["grid"]["origin"] = -2.5;
    rewrite(metadata);
    CHECK_THAT(error(), Contains("noise.csv:2: x = -2 is not grid point 0 (x = -2.5)") && Contains("noise.json"));
  }
  SECTION("the step differs: the second row is off the grid") {
    metadata["grid"]["step"] = 1.0 + 1e-6;
    rewrite(metadata);
    CHECK_THAT(error(), Contains("noise.csv:3: x = -1 is not grid point 1"));
  }
  SECTION("more grid points than rows") {
    metadata["grid"]["size"] = 6;
    rewrite(metadata);
    CHECK_THAT(error(), Contains("noise.csv: 5 data rows but") && Contains("noise.json declares 6 grid points"));
  }
  SECTION("fewer grid points than rows") {
    metadata["grid"]["size"] = 4;
    rewrite(metadata);
    CHECK_THAT(error(), Contains("noise.csv:6: row 5 is beyond the 4 grid points"));
  }
  SECTION("a declared support kind the data does not have") {
    put_file(csv, "x,p\n-2,0.5\n-1,0.25\n0,0.125\n1,0.0625\n2,0.0625\n");
    CHECK_THAT(error(), Contains("noise.csv") && Contains("declared symmetric"));
  }
  SECTION("an unreadable grid") {
    metadata["grid"]["size"] = 4.5;
    rewrite(metadata);
    CHECK_THAT(error(), Contains("noise.json: \"grid.size\" must be a positive integer"));
    metadata["grid"]["size"] = 5;
    metadata["grid"].erase("step");
    rewrite(metadata);
    CHECK_THAT(error(), Contains("noise.json: missing key \"grid.step\""));
  }
  SECTION("another format or a newer version") {
    metadata["version"] = 2;
    rewrite(metadata);
    CHECK_THAT(error(), Contains("noise.json: format version 2 is not supported"));
    metadata["format"] = "something-else";
    rewrite(metadata);
    CHECK_THAT(error(), Contains("noise.json: not a noise-table metadata file"));
  }
  SECTION("invalid JSON") {
    put_file(json_path, "{\"format\": \"noiselearn-noise-table\",\n  \"version\": 1,,\n}");
    CHECK_THAT(error(), Contains("noise.json: invalid JSON: parse error at line 2"));
  }
  SECTION("a number beyond the double range is invalid JSON, not another kind of error") {
    put_file(json_path, "{\"format\": \"noiselearn-noise-table\", \"version\": 1e400}");
    CHECK_THAT(error(), Contains("noise.json: invalid JSON: number overflow parsing '1e400'"));
  }
  SECTION("an own file with a logp column still matches its grid") {
    put_file(csv, "x,p,logp\n-2,0.0625,-2.77\n-1,0.25,-1.39\n0,0.375,-0.98\n1,0.25,-1.39\n2,0.0625,-inf\n");
    CHECK(read_noise_table(csv).table.probabilities() == std::vector<double>{0.0625, 0.25, 0.375, 0.25, 0.0625});
  }
}

TEST_CASE("a CSV edited after its JSON was written is refused (stale certificate)", "[table-files]") {
  const auto dir = std::filesystem::temp_directory_path() / ("noiselearn-checksum-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const noiselearn::NoiseTable table(noiselearn::Grid{-1.0, 1.0, 3}, {0.25, 0.5, 0.25});
  noiselearn::write_noise_table(table, dir / "t.csv", {{"certificate", {{"compositions", 1}}}}, false);
  CHECK_NOTHROW(noiselearn::read_noise_table(dir / "t.csv"));
  // Same grid, different probabilities: without the checksum the old certificate would describe it.
  std::ofstream(dir / "t.csv") << "x,p\n-1,0.5\n0,0.25\n1,0.25\n";
  CHECK_THROWS_WITH(noiselearn::read_noise_table(dir / "t.csv"), Catch::Contains("checksum mismatch"));
  std::filesystem::remove(dir / "t.json");
  CHECK(noiselearn::read_noise_table(dir / "t.csv").table.p(0) == 0.5);  // bare CSV again
  std::filesystem::remove_all(dir);
}
