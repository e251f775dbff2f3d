// noise.csv / noise.json of a table with geometric tails: the tails are part of the table's description
// (noise.json "tails"), read back bit for bit; without them the window alone does not sum to 1 and is refused.
#include <catch2/catch.hpp>

#include <cmath>

#include "core/errors.hpp"
#include "io/atomic_file.hpp"
#include "io/table_files.hpp"
#include "scratch_directory.hpp"

using namespace noiselearn;

namespace {

NoiseTable discrete_laplace(double r, int64_t w) {
  std::vector<double> p;
  for (int64_t i = -w; i <= w; ++i) p.push_back((1.0 - r) / (1.0 + r) * std::pow(r, std::abs(static_cast<double>(i))));
  return NoiseTable(Grid::symmetric(static_cast<double>(w), 1.0), p, std::nullopt, {}, GeometricTails{r});
}

}  // namespace

TEST_CASE("a table with geometric tails round-trips through noise.csv and noise.json with its tails", "[io][tails]") {
  testing::ScratchDirectory dir;
  const NoiseTable table = discrete_laplace(0.9, 5);
  write_noise_table(table, dir / "noise.csv", nullptr, false);
  const LoadedTable loaded = read_noise_table(dir / "noise.csv");
  REQUIRE(loaded.table.tails());
  CHECK(loaded.table.tails()->ratio == 0.9);
  CHECK(loaded.table.probabilities() == table.probabilities());
  CHECK(loaded.metadata.at("tails").at("left_mass").get<double>() == table.left_tail_mass());
  CHECK(loaded.table.right_tail_mass() == table.right_tail_mass());
}

TEST_CASE(
    "a tailed table's CSV without its JSON is refused (the window alone does not sum to 1), and so is a bad "
    "tail ratio in the JSON",
    "[io][tails]") {
  testing::ScratchDirectory dir;
  write_noise_table(discrete_laplace(0.9, 5), dir / "noise.csv", nullptr, false);
  std::filesystem::copy_file(dir / "noise.csv", dir / "bare.csv");
  CHECK_THROWS_WITH(read_noise_table(dir / "bare.csv"), Catch::Contains("sum"));
  std::string json = read_file(dir / "noise.json");
  const size_t at = json.find("\"ratio\": 0.9");
  REQUIRE(at != std::string::npos);
  json.replace(at, 12, "\"ratio\": 1.5");
  write_file_atomically(dir / "noise.json", json, /*overwrite=*/true);
  CHECK_THROWS_WITH(read_noise_table(dir / "noise.csv"), Catch::Contains("tails.ratio"));
}
