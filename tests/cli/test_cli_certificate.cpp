// What `evaluate` prints is as true as what it computes (issue 7, items 1, 2, 4): the printed bracket contains
// the exact value (computed here by hand or enumeration), the user's values are echoed exactly, and absurd
// inputs end with exit code 2 and a line naming the limit.
#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <string>

#include "run_noiselearn.hpp"

using namespace noiselearn::testing;

namespace {

// The two numbers of the first "<what> in [a, b]" after `key` in the output, as printed.
std::pair<std::string, std::string> bracket_after(const std::string& out, const std::string& key,
                                                  const std::string& what) {
  const auto at = out.find(key);
  REQUIRE(at != std::string::npos);
  std::smatch match;
  const std::string rest = out.substr(at);
  REQUIRE(std::regex_search(rest, match, std::regex(what + " in \\[([^,]+), ([^\\]]+)\\]")));
  return {match[1].str(), match[2].str()};
}

long double value(const std::string& text) { return std::strtold(text.c_str(), nullptr); }

}  // namespace

TEST_CASE("evaluate: an asymmetric 5-point table, adaptive signs, inside the printed bracket", "[cli][certificate]") {
  const auto dir = scratch("certificate-mixed-signs");
  write(dir / "t.csv", "x,p\n-2,0.04\n-1,0.10\n0,0.41\n1,0.28\n2,0.17\n");
  // Exact values by enumeration of every adaptive strategy (tests/accounting/brute_force.hpp, brute_force_adaptive):
  // delta(1) = 0.4020482, eps(0.35) = 1.2653814; the best fixed sequence (+s, -s) gives only 0.3838482 and 1.180363,
  // which the lower bound must exceed.
  const Run run = run_noiselearn("evaluate t.csv --sensitivity 1 -n 2 --shifts all --epsilon 1 --delta 0.35", dir);
  REQUIRE(run.exit_code == 0);
  CHECK(run.out.find("neighbours covered: any sequence") != std::string::npos);
  const auto [delta_low, delta_high] = bracket_after(run.out, "epsilon = 1 ", "delta");
  CHECK(value(delta_low) <= 0.4020482L);
  CHECK(value(delta_high) >= 0.4020483L);
  CHECK(value(delta_low) >= 0.3838483L);
  CHECK(run.out.find("upper by exact adaptive programme") != std::string::npos);
  const auto [eps_low, eps_high] = bracket_after(run.out, "delta = 0.35", "epsilon");
  CHECK(value(eps_low) <= 1.2653814L);
  CHECK(value(eps_high) >= 1.2653815L);
  CHECK(value(eps_low) >= 1.1803636L);
  // The narrower relation, asked for explicitly, is recorded and gives the same-direction worst case 0.311100.
  const Run narrow = run_noiselearn("evaluate t.csv --sensitivity 1 -n 2 --neighbours same-direction --epsilon 1", dir);
  REQUIRE(narrow.exit_code == 0);
  CHECK(narrow.out.find("neighbours covered: sequences whose query differences all have the same sign") !=
        std::string::npos);
  const auto [low, high] = bracket_after(narrow.out, "epsilon = 1 ", "delta");
  CHECK(value(low) <= 0.3111L);
  CHECK(value(high) >= 0.3111L);
  CHECK(value(high) < 0.3838L);
}

TEST_CASE("evaluate: printed bounds are rounded outwards and user values echoed exactly", "[cli][certificate]") {
  const auto dir = scratch("certificate-printing");
  // delta(0) = 0.12345676 (x = 0 never occurs under B) + (0.87654324 - 0.12345676) = 0.87654324 exactly; printed
  // to nearest with 7 digits it would be [8.765432e-01, 8.765432e-01], which excludes it.
  write(dir / "t.csv", "x,p\n0,0.12345676\n1,0.87654324\n");
  const Run run = run_noiselearn("evaluate t.csv --sensitivity 1 --epsilon 0 --delta 0.4999999", dir);
  REQUIRE(run.exit_code == 0);
  const auto [low, high] = bracket_after(run.out, "epsilon = 0 ", "delta");
  CHECK(value(low) <= 0.87654324L);
  CHECK(value(high) >= 0.87654324L);
  CHECK(low != high);
  CHECK(run.out.find("delta = 0.4999999") != std::string::npos);
}

TEST_CASE("evaluate: a negative or non-numeric adaptive (block) budget is refused with exit code 2, naming it",
          "[cli][certificate]") {
  const auto dir = scratch("certificate-block-budget");
  write(dir / "t.csv", "x,p\n0,0.2\n1,0.5\n2,0.3\n");
  const Run negative = run_noiselearn("evaluate t.csv --sensitivity 1 -n 3 --adaptive-block-budget -1", dir);
  CHECK(negative.exit_code == 2);
  CHECK(error_line(negative).find("block budget") != std::string::npos);
  const Run word = run_noiselearn("evaluate t.csv --sensitivity 1 -n 3 --adaptive-block-budget lots", dir);
  CHECK(word.exit_code == 2);
  CHECK(error_line(word).find("adaptive-block-budget") != std::string::npos);
  const Run fine = run_noiselearn("evaluate t.csv --sensitivity 1 -n 3 --adaptive-block-budget 1e9", dir);
  CHECK(fine.exit_code == 0);
}

TEST_CASE("evaluate: absurd n and curve sizes are refused with exit code 2", "[cli][certificate]") {
  const auto dir = scratch("certificate-absurd");
  write(dir / "t.csv", "x,p\n-1,0.25\n0,0.5\n1,0.25\n");
  const Run huge = run_noiselearn("evaluate t.csv --sensitivity 1 -n 1000000000000000", dir);
  CHECK(huge.exit_code == 2);
  CHECK(error_line(huge).find("limit") != std::string::npos);
  const Run curve = run_noiselearn("evaluate t.csv --sensitivity 1 --curve-points 1000000000000", dir);
  CHECK(curve.exit_code == 2);
  CHECK(error_line(curve).find("curve points") != std::string::npos);
  const Run wide = run_noiselearn("evaluate t.csv --sensitivity 3", dir);
  CHECK(wide.exit_code == 2);
  CHECK(error_line(wide).find("sensitivity") != std::string::npos);
}
