// The sampler's own table reader accepts what noiselearn writes and refuses what the full reader refuses,
// naming the file (InputError: exit code 2 in the CLI).
#include <catch2/catch.hpp>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/errors.hpp"
#include "io/checksum.hpp"
#include "sampler/sampler_table_file.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using noiselearn::fnv1a64_checksum;
using noiselearn::InputError;
using noiselearn::sampler::read_sampler_table;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("noiselearn-sampler-" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

const std::string kCsv = "x,p\n-1,0.25\n0,0.5\n1,0.25\n";

std::string metadata(const std::string& checksum, const std::string& more = "") {
  return R"({"format": "noiselearn-noise-table", "version": 1, "grid": {"origin": -1, "step": 1, "size": 3},
             "support": "symmetric", "csv_checksum": ")" +
         checksum + "\"" + more + "}";
}

std::string message_of(const fs::path& path) {
  try {
    read_sampler_table(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("sampler table file: a table with its metadata and matching checksum is read", "[sampler]") {
  const fs::path dir = scratch("good");
  write(dir / "noise.csv", kCsv);
  write(dir / "noise.json", metadata(fnv1a64_checksum(kCsv)));
  const auto table = read_sampler_table(dir / "noise.csv");
  CHECK(table.size() == 3);
  CHECK(table.origin == -1.0);
  CHECK(table.step == 1.0);
  CHECK(table.is_integer_grid());
  CHECK(table.probabilities[1] == 0.5);
  CHECK(table.metadata.at("support") == "symmetric");
}

TEST_CASE("sampler table file: a bare CSV has its grid inferred", "[sampler]") {
  const fs::path dir = scratch("bare");
  write(dir / "t.csv", "x,p\n0,0.5\n0.5,0.25\n1,0.25\n");
  const auto table = read_sampler_table(dir / "t.csv");
  CHECK(table.step == 0.5);
  CHECK_FALSE(table.is_integer_grid());
}

TEST_CASE("sampler table file: bad files are refused naming the file", "[sampler]") {
  const fs::path dir = scratch("bad");
  write(dir / "changed.csv", "x,p\n-1,0.25\n0,0.5\n1,0.2500\n");
  write(dir / "changed.json", metadata(fnv1a64_checksum(kCsv)));
  CHECK_THAT(message_of(dir / "changed.csv"),
             Contains("changed.json does not describe") && Contains("checksum mismatch"));

  write(dir / "word.csv", "x,p\n-1,0.25\n0,abc\n1,0.25\n");
  CHECK_THAT(message_of(dir / "word.csv"), Contains("word.csv:3:") && Contains("'abc'"));

  write(dir / "sum.csv", "x,p\n-1,0.25\n0,0.5\n1,0.3\n");
  CHECK_THAT(message_of(dir / "sum.csv"), Contains("sum.csv: probabilities sum to"));

  // Renormalisation only when asked, and only within the tolerance given.
  write(dir / "rounded.csv", "x,p\n0,0.333333333\n1,0.333333333\n2,0.333333333\n");
  CHECK_THAT(message_of(dir / "rounded.csv"), Contains("rounded.csv: probabilities sum to"));
  const auto renormalised = read_sampler_table(dir / "rounded.csv", 1e-6);
  CHECK(renormalised.probabilities[0] == Approx(1.0 / 3).epsilon(1e-15));
  CHECK(renormalised.metadata.at("renormalised").at("sum").get<double>() == Approx(0.999999999));
  CHECK_THROWS_AS(read_sampler_table(dir / "rounded.csv", 1e-10), InputError);

  write(dir / "negative.csv", "x,p\n-1,0.75\n0,-0.25\n1,0.5\n");
  CHECK_THAT(message_of(dir / "negative.csv"), Contains("negative.csv:3:") && Contains("negative"));

  write(dir / "underflow.csv", "x,p\n-1,0.5\n0,1e-400\n1,0.5\n");
  CHECK_THAT(message_of(dir / "underflow.csv"), Contains("underflow.csv:3:"));

  write(dir / "offgrid.csv", "x,p\n-1,0.25\n0.1,0.5\n1,0.25\n");
  CHECK_THAT(message_of(dir / "offgrid.csv"), Contains("offgrid.csv:3:") && Contains("not grid point"));

  write(dir / "tails.csv", kCsv);
  write(dir / "tails.json", metadata(fnv1a64_checksum(kCsv), R"(, "tails": {"kind": "geometric", "ratio": 0.5})"));
  CHECK_THAT(message_of(dir / "tails.csv"), Contains("tails.json") && Contains("geometric tails"));

  write(dir / "notjson.csv", kCsv);
  write(dir / "notjson.json", "{oops");
  CHECK_THAT(message_of(dir / "notjson.csv"), Contains("notjson.json: invalid JSON"));
  write(dir / "notjson.json", R"({"format": "noiselearn-noise-table", "version": 1e400})");
  CHECK_THAT(message_of(dir / "notjson.csv"), Contains("notjson.json: invalid JSON") && Contains("1e400"));

  // A format or a version of another type, or a version beyond int's range: not a file this reader knows.
  write(dir / "other.csv", kCsv);
  write(dir / "other.json", R"({"format": 5, "version": 1})");
  CHECK_THAT(message_of(dir / "other.csv"), Contains("other.json: not a noise-table metadata file"));
  for (const char* version : {"\"1\"", "null", "1e300", "2"}) {
    INFO(version);
    write(dir / "other.json", std::string(R"({"format": "noiselearn-noise-table", "version": )") + version + "}");
    CHECK_THAT(message_of(dir / "other.csv"), Contains("other.json: format version is not 1"));
  }

  CHECK_THAT(message_of(dir / "missing.csv"), Contains("missing.csv: cannot be read"));
  write(dir / "empty.csv", "x,p\n");
  CHECK_THAT(message_of(dir / "empty.csv"), Contains("empty.csv: no data rows"));
}
