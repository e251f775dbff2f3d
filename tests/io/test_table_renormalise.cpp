// Reading tables from other tools whose probabilities sum to 1 only within ~1e-9 (TableReadOptions).
#include <catch2/catch.hpp>

#include <cmath>

#include "io/scratch_directory.hpp"
#include "io/table_files.hpp"

using namespace noiselearn;
using Catch::Matchers::Contains;
using nlohmann::json;
using noiselearn::testing::get_file;
using noiselearn::testing::input_error_of;
using noiselearn::testing::put_file;
using noiselearn::testing::ScratchDirectory;

namespace {

TableReadOptions renormalising() {
  TableReadOptions options;
  options.renormalise = true;
  return options;
}

}  // namespace

TEST_CASE("a table off by 1e-9 is refused by default and divided by its sum with renormalise", "[table_files]") {
  const ScratchDirectory scratch;
  const auto csv = scratch / "foreign.csv";
  // Three probabilities rounded to 9 digits by another tool: they sum to 1.000000001.
  put_file(csv, "x,p\n-1,0.250000001\n0,0.5\n1,0.25\n");
  const double total = compensated_sum({0.250000001, 0.5, 0.25});  // what the reader divides by
  CHECK_THAT(input_error_of([&] { read_noise_table(csv); }),
             Contains("foreign.csv: probabilities sum to 1.000000001") && Contains("tolerance 1e-12"));

  const LoadedTable loaded = read_noise_table(csv, renormalising());
  const NoiseTable& table = loaded.table;
  // p_i / sum, each correctly rounded; their sum is 1 within rounding, far inside 1e-12.
  CHECK(table.p(0) == 0.250000001 / total);
  CHECK(table.p(1) == 0.5 / total);
  CHECK(table.p(2) == 0.25 / total);
  CHECK(std::abs(compensated_sum(table.probabilities()) - 1.0) <= 4e-16);
  // The table says so: a note for the log, its provenance, the metadata as read.
  REQUIRE(loaded.notes.size() == 2);  // the inferred grid, and the renormalisation
  CHECK_THAT(loaded.notes[1], Contains("probabilities summed to 1.000000001") && Contains("renormalised"));
  CHECK(table.provenance().parameters.at("renormalised_from_sum") == total);
  CHECK_THAT(table.provenance().note, Contains("renormalised"));
  CHECK(loaded.metadata["renormalised"]["sum"] == total);

  // Written again, its noise.json keeps the record.
  const auto copy = scratch / "copy.csv";
  write_noise_table(table, copy, nullptr, false);
  const json metadata = json::parse(get_file(scratch / "copy.json"));
  CHECK(metadata["parameters"]["renormalised_from_sum"] == total);
  CHECK_THAT(metadata["note"].get<std::string>(), Contains("renormalised"));
}

TEST_CASE("renormalise leaves a table that sums to 1 alone and still refuses a sum far from 1", "[table_files]") {
  const ScratchDirectory scratch;
  const auto csv = scratch / "noise.csv";
  SECTION("a sum within 1e-12 is not touched and not reported") {
    put_file(csv, "x,p\n0,0.5\n1,0.5\n");
    const LoadedTable loaded = read_noise_table(csv, renormalising());
    CHECK(loaded.table.p(0) == 0.5);
    CHECK(loaded.table.provenance().parameters.count("renormalised_from_sum") == 0);
    CHECK_FALSE(loaded.metadata.contains("renormalised"));
  }
  SECTION("a sum off by 1e-3 is beyond the default tolerance 1e-6") {
    put_file(csv, "x,p\n0,0.5\n1,0.499\n");
    CHECK_THAT(input_error_of([&] { read_noise_table(csv, renormalising()); }),
               Contains("noise.csv: probabilities sum to 0.999") && Contains("renormalisation tolerance 1e-06"));
    TableReadOptions wide = renormalising();
    wide.sum_tolerance = 1e-2;
    CHECK(read_noise_table(csv, wide).table.p(1) == 0.499 / compensated_sum({0.5, 0.499}));
  }
  SECTION("a negative probability is still reported with its line, not divided") {
    put_file(csv, "x,p\n0,0.6\n1,-0.1\n2,0.5\n");
    CHECK_THAT(input_error_of([&] { read_noise_table(csv, renormalising()); }),
               Contains("noise.csv:3:") && Contains("is negative"));
  }
  SECTION("a table with its noise.json is renormalised the same way") {
    write_noise_table(NoiseTable(Grid{0.0, 1.0, 2}, {0.5, 0.5}), csv, nullptr, false);
    json metadata = json::parse(get_file(scratch / "noise.json"));
    metadata.erase("csv_checksum");  // the CSV is edited below, as another tool would
    put_file(scratch / "noise.json", metadata.dump(2));
    put_file(csv, "x,p\n0,0.5\n1,0.5000000004\n");
    const LoadedTable loaded = read_noise_table(csv, renormalising());
    const double total = compensated_sum({0.5, 0.5000000004});
    CHECK(loaded.table.p(1) == 0.5000000004 / total);
    CHECK(loaded.metadata["renormalised"]["sum"] == total);
  }
}
