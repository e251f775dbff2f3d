// noiselearn sample: draws from the secure sampler, the quantised table written and certified like its
// source, and bad files refused with exit 2 naming the file.
#include <catch2/catch.hpp>

#include "cli/run_noiselearn.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

using namespace noiselearn::testing;
using Catch::Matchers::Contains;

namespace {

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("sample: integer draws from the table's support, --seed warns and repeats, --out refuses to overwrite",
          "[cli]") {
  const fs::path dir = scratch("sample-draws");
  write(dir / "t.csv", "x,p\n-2,0.1\n-1,0.2\n0,0.4\n1,0.2\n2,0.1\n");
  const Run first = run_noiselearn("sample t.csv --count 1000 --seed 5", dir);
  REQUIRE(first.exit_code == 0);
  CHECK_THAT(first.err,
             Contains("--seed 5") && Contains("DeterministicTestEntropySource") && Contains("never for privacy"));
  const auto draws = lines_of(first.out);
  REQUIRE(draws.size() == 1000);
  std::set<std::string> seen(draws.begin(), draws.end());
  CHECK(seen == std::set<std::string>{"-2", "-1", "0", "1", "2"});
  CHECK(run_noiselearn("sample t.csv --count 1000 --seed 5", dir).out == first.out);

  // The default source is the OS CSPRNG: no warning.
  const Run secure = run_noiselearn("sample t.csv --count 10 --out draws.txt", dir);
  REQUIRE(secure.exit_code == 0);
  CHECK_THAT(secure.err, !Contains("DeterministicTestEntropySource"));
  CHECK(lines_of(read(dir / "draws.txt")).size() == 10);
  CHECK_THAT(secure.out, Contains("wrote 10 draw(s) to draws.txt"));
  const Run again = run_noiselearn("sample t.csv --count 10 --out draws.txt", dir);
  CHECK(again.exit_code == 2);
  CHECK_THAT(error_line(again), Contains("refusing to overwrite existing file draws.txt (use --force)"));
  CHECK(run_noiselearn("sample t.csv --count 3 --out draws.txt --force", dir).exit_code == 0);
  CHECK(lines_of(read(dir / "draws.txt")).size() == 3);

  // A non-integer grid prints its grid points.
  write(dir / "half.csv", "x,p\n0,0.5\n0.5,0.5\n");
  const Run half = run_noiselearn("sample half.csv --count 200 --seed 1", dir);
  std::set<std::string> points;
  for (const auto& line : lines_of(half.out)) points.insert(line);
  CHECK(points == std::set<std::string>{"0", "0.5"});
}

TEST_CASE("sample --quantised-out: the sampled table is written with its certificate, consistent with the source's",
          "[cli]") {
  const fs::path dir = scratch("sample-quantised");
  REQUIRE(run_noiselearn("baseline discrete-laplace --scale 3 --grid-step 1 --range 40 --out lap --sensitivity 1 "
                         "--compositions 4 --delta 1e-6",
                         dir)
              .exit_code == 0);
  const Run run = run_noiselearn("sample lap/noise.csv --count 0 --quantised-out q --sensitivity 1 --epsilon 1", dir);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out, Contains("quantised: weights summing to 2^53") && Contains("0 cell(s) lifted"));
  CHECK_THAT(run.out, Contains("certificates: 4 composition(s), sensitivity 1") && Contains("delta(eps = 1):") &&
                          Contains("eps(delta = 1e-06):"));
  const auto metadata = nlohmann::json::parse(read(dir / "q" / "noise.json"));
  const auto& certificate = metadata.at("certificate");
  CHECK(certificate.at("compositions") == 4);  // n and delta taken from the source's certificate
  REQUIRE(certificate.at("epsilon_at_delta").size() == 1);
  CHECK(certificate.at("epsilon_at_delta")[0].at("delta") == 1e-6);
  REQUIRE(certificate.at("delta_at_epsilon").size() == 1);
  CHECK(certificate.at("delta_at_epsilon")[0].at("epsilon") == 1.0);
  CHECK(metadata.at("quantisation").at("total_bits") == 53);
  CHECK(metadata.at("quantisation").at("max_abs_change").get<double>() <= std::ldexp(1.0, -53));
  // Each cell moved by at most 2^-53, so after n releases the exact deltas of the two tables differ by at most
  // B = (1 + e^eps) n K 2^-53 (total variation of the composed pairs); the certified brackets must allow that.
  const auto& source = metadata.at("quantised_from").at("certificate").at("delta_at_epsilon")[0];
  const auto& quantised = certificate.at("delta_at_epsilon")[0];
  const double bound = (1.0 + std::exp(1.0)) * 4 * 81 * std::ldexp(1.0, -53);
  CHECK(quantised.at("delta_lower").get<double>() <= source.at("delta_upper").get<double>() + bound);
  CHECK(source.at("delta_lower").get<double>() <= quantised.at("delta_upper").get<double>() + bound);

  // The quantised table is a noise table like any other, and sampling it again changes nothing: its
  // probabilities are the integer weights / 2^53 exactly.
  CHECK(run_noiselearn("evaluate q/noise.csv --sensitivity 1 -n 4 --epsilon 1", dir).exit_code == 0);
  const Run again = run_noiselearn("sample q/noise.csv --count 0", dir);
  REQUIRE(again.exit_code == 0);
  CHECK_THAT(again.out, Contains("max |p_quantised - p| = 0;"));
  // Without --force the quantised table is not replaced.
  const Run refuse = run_noiselearn("sample lap/noise.csv --count 0 --quantised-out q --sensitivity 1", dir);
  CHECK(refuse.exit_code == 2);
  CHECK_THAT(error_line(refuse), Contains("refusing to overwrite"));
}

TEST_CASE("sample: tiny cells stay positive and are reported lifted", "[cli]") {
  const fs::path dir = scratch("sample-tiny");
  write(dir / "t.csv", "x,p\n-1,0.5\n0,1e-300\n1,0.5\n");
  const Run run = run_noiselearn("sample t.csv --count 0 --quantised-out q.csv --sensitivity 1 --delta 1e-3", dir);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out, Contains("1 cell(s) lifted to 1 unit"));
  const std::string csv = read(dir / "q.csv");
  CHECK_THAT(csv, Contains("\n0,1.1102230246251565e-16\n"));  // 2^-53: the floor of one unit
}

TEST_CASE("sample: bad files and missing sensitivity are refused with exit 2 naming the culprit", "[cli]") {
  const fs::path dir = scratch("sample-bad");
  REQUIRE(run_noiselearn("baseline discrete-laplace --scale 2 --grid-step 1 --range 10 --out lap.csv", dir).exit_code ==
          0);
  write(dir / "lap.csv", read(dir / "lap.csv") + "# edited\n");
  const Run changed = run_noiselearn("sample lap.csv", dir);
  CHECK(changed.exit_code == 2);
  CHECK_THAT(error_line(changed), Contains("lap.json does not describe lap.csv") && Contains("checksum mismatch"));

  write(dir / "word.csv", "x,p\n0,0.5\n1,half\n");
  const Run word = run_noiselearn("sample word.csv", dir);
  CHECK(word.exit_code == 2);
  CHECK_THAT(error_line(word), Contains("word.csv:3:"));

  const Run missing = run_noiselearn("sample nothing.csv", dir);
  CHECK(missing.exit_code == 2);
  CHECK_THAT(error_line(missing), Contains("nothing.csv"));

  write(dir / "t.csv", "x,p\n-1,0.25\n0,0.5\n1,0.25\n");
  const Run no_sensitivity = run_noiselearn("sample t.csv --count 0 --quantised-out q.csv", dir);
  CHECK(no_sensitivity.exit_code == 2);
  CHECK_THAT(error_line(no_sensitivity), Contains("--sensitivity"));
  CHECK_FALSE(fs::exists(dir / "q.csv"));
  CHECK(run_noiselearn("sample t.csv --count -1", dir).exit_code == 2);

  // A sum off by 1e-9 is refused, and read with the global --renormalise as by every other command.
  write(dir / "rounded.csv", "x,p\n0,0.333333333\n1,0.333333333\n2,0.333333333\n");
  const Run rounded = run_noiselearn("sample rounded.csv", dir);
  CHECK(rounded.exit_code == 2);
  CHECK_THAT(error_line(rounded), Contains("rounded.csv: probabilities sum to"));
  const Run renormalised = run_noiselearn("--renormalise sample rounded.csv --count 5 --seed 1", dir);
  CHECK(renormalised.exit_code == 0);
  CHECK_THAT(renormalised.err, Contains("renormalised"));
}
