// noiselearn account: the DP-SGD use case in one command, events files, calibration, and bad input (one line naming
// the culprit, exit 2). The numbers are checked against what they mean: the printed bracket holds the value of a
// finer accounting, and the calibrated noise multiplier certifies the target while one a tolerance below does not.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "accounting/dp_sgd.hpp"
#include "cli/run_noiselearn.hpp"

namespace fs = std::filesystem;
using namespace noiselearn::testing;
using Catch::Matchers::Contains;

TEST_CASE("account: DP-SGD in one command, its bracket printed and holding a finer accounting's", "[cli][account]") {
  const fs::path dir = scratch("account-dpsgd");
  const Run run = run_noiselearn(
      "account --event mechanism=gaussian,noise_multiplier=1.1,sampling_rate=0.0042666667,count=2000 --delta 1e-5 "
      "--json",
      dir);
  REQUIRE(run.exit_code == 0);
  const auto json = nlohmann::json::parse(run.out);
  const double lower = json["epsilon_at_delta"][0]["epsilon_lower"],
               upper = json["epsilon_at_delta"][0]["epsilon_upper"];
  CHECK(lower <= upper);
  CHECK((upper - lower) / upper <= 1e-4);  // the default's goal
  // A finer grid (loss step 2.5e-5) is another rigorous bracket: both must contain the truth, so they overlap.
  noiselearn::AccountantOptions fine;
  fine.loss_step = 2.5e-5;
  const auto finer = noiselearn::dp_sgd_epsilon(1.1, 0.0042666667, 2000, 1e-5, fine);
  CHECK(finer.lower <= upper);
  CHECK(lower <= finer.upper);
  // The text report says what was accounted.
  const Run text = run_noiselearn(
      "account --event mechanism=gaussian,noise_multiplier=1.1,sampling_rate=0.0042666667,count=2000 --delta 1e-5",
      dir);
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Contains("Poisson sampling at rate 0.00426667, 2000 releases") &&
                           Contains("adding or removing one record") && Contains("delta = 1e-05"));
}

TEST_CASE("account: an events file with two phases, and replace one with sampling without replacement",
          "[cli][account]") {
  const fs::path dir = scratch("account-file");
  write(dir / "events.yaml",
        "relation: add_remove\n"
        "events:\n"
        "  - mechanism: gaussian\n    noise_multiplier: 1\n    count: 3\n"
        "  - mechanism: gaussian\n    noise_multiplier: 2\n    count: 8\n");
  const Run run = run_noiselearn("account events.yaml --epsilon 1 --json", dir);
  REQUIRE(run.exit_code == 0);
  const auto json = nlohmann::json::parse(run.out);
  // 3 releases at m = 1 and 8 at m = 2 are one Gaussian with 1/m^2 = 3 + 8/4: Balle and Wang's delta at eps 1.
  const double m = 1.0 / std::sqrt(5.0), eps = 1.0;
  const double exact = 0.5 * std::erfc((eps * m - 0.5 / m) / std::sqrt(2.0)) -
                       std::exp(eps) * 0.5 * std::erfc((eps * m + 0.5 / m) / std::sqrt(2.0));
  CHECK(double(json["delta_at_epsilon"][0]["delta_lower"]) <= exact * (1 + 1e-9));
  CHECK(double(json["delta_at_epsilon"][0]["delta_upper"]) >= exact * (1 - 1e-9));
  write(dir / "wor.yaml",
        "relation: replace_one\n"
        "events:\n"
        "  - mechanism: gaussian\n    noise_multiplier: 2\n    batch_size: 256\n    dataset_size: 60000\n    count: "
        "1000\n");
  const Run wor = run_noiselearn("account wor.yaml --delta 1e-5", dir);
  REQUIRE(wor.exit_code == 0);
  CHECK_THAT(wor.out, Contains("batches of 256 of 60000 without replacement") && Contains("replacing one record") &&
                          Contains("profile envelope of remove"));
}

TEST_CASE("account --calibrate: the least noise multiplier certifies the target, the one below does not",
          "[cli][account]") {
  const fs::path dir = scratch("account-calibrate");
  const Run run = run_noiselearn(
      "account --event mechanism=gaussian,noise_multiplier=1,sampling_rate=0.01,count=1000 --delta 1e-5 --calibrate 2 "
      "--json",
      dir);
  REQUIRE(run.exit_code == 0);
  const auto json = nlohmann::json::parse(run.out);
  const double m = json["noise_multiplier"], below = json["noise_multiplier_below"];
  CHECK(double(json["epsilon_upper"]) <= 2.0);
  CHECK(below < m);
  CHECK(m / below <= 1.0 + 1.001e-3);
  CHECK(noiselearn::dp_sgd_epsilon(m, 0.01, 1000, 1e-5).upper <= 2.0);
  CHECK(noiselearn::dp_sgd_epsilon(below, 0.01, 1000, 1e-5).upper > 2.0);
}

TEST_CASE("account: bad input is one line naming the culprit, exit 2", "[cli][account][errors]") {
  const fs::path dir = scratch("account-errors");
  auto refused = [&](const std::string& arguments, const std::string& expected) {
    const Run run = run_noiselearn(arguments, dir);
    INFO(arguments << "\n" << run.err);
    CHECK(run.exit_code == 2);
    CHECK_THAT(error_line(run), Contains(expected));
  };
  refused("account --event mechanism=gaussian,noise_multiplier=0,count=10", "noise_multiplier must be positive");
  refused("account --event mechanism=gaussian,noise_multiplier=1,sampling_rate=1.5",
          "sampling_rate 1.5 must be in (0, 1]");
  refused("account --event mechanism=gaussian,noise_multiplier=1,batch_size=70,dataset_size=60 --relation replace_one",
          "batch_size 70 must be between 1 and dataset_size 60");
  refused("account --event mechanism=gaussian,noise_multiplier=1,count=2.5", "count must be a whole number");
  refused("account --event mechanism=gaussian,noise_multiplier=1,count=-1", "count must be a whole number");
  refused("account --event mechanism=gaussian,noise_multiplier=1 --delta 1.5", "delta");
  refused("account --event mechanism=gausian,noise_multiplier=1", "did you mean 'gaussian'");
  refused("account --event mechanism=gaussian,noise_multiplier=1,sampling_rate=0.1 --relation replace_one",
          "Poisson sampling is accounted under relation add_remove");
  refused(
      "account --event mechanism=gaussian,noise_multiplier=1,sampling_rate=0.01,count=100 --delta 1e-5 --calibrate "
      "1e-6",
      "no noise multiplier up to 1000 reaches epsilon 1e-06");
  refused("account", "no events");
  write(dir / "bad.yaml",
        "relation: add_remove\nevents:\n  - mechanism: gaussian\n    noise_multiplier: 1\n    sampling_rat: 0.1\n");
  refused("account bad.yaml", "bad.yaml, event 1: unknown key 'sampling_rat'; did you mean 'sampling_rate'?");
  write(dir / "bad2.yaml", "relaton: add_remove\nevents: []\n");
  refused("account bad2.yaml", "unknown key 'relaton'; did you mean 'relation'?");
  write(dir / "bad3.yaml", "events:\n  - mechanism: laplace\n    noise_multiplier: [1, 2]\n");
  refused("account bad3.yaml", "bad3.yaml, event 1: noise_multiplier must be a single value");
  refused("account missing.yaml", "missing.yaml: cannot read the events file");
}

TEST_CASE(
    "account: a noise table on d coordinates from an events file (its path relative to the file), as the "
    "mechanism it tabulates",
    "[cli][account]") {
  const fs::path dir = scratch("account-table");
  fs::create_directories(dir / "sub");
  // The discrete Laplace of scale 2 on [-80, 80] as a bare x,p CSV next to the events file.
  std::string csv = "x,p\n";
  double sum = 0.0;
  for (int x = -80; x <= 80; ++x) sum += std::exp(-std::abs(x) / 2.0);
  for (int x = -80; x <= 80; ++x) csv += fmt::format("{},{:.17g}\n", x, std::exp(-std::abs(x) / 2.0) / sum);
  write(dir / "sub" / "laplace.csv", csv);
  write(dir / "sub" / "events.yaml",
        "events:\n  - mechanism: table\n    table: laplace.csv\n    sensitivity: 1\n    coordinates: 4\n"
        "    sampling_rate: 0.1\n    count: 30\n");
  const Run table = run_noiselearn("account sub/events.yaml --delta 1e-5 --json", dir);
  REQUIRE(table.exit_code == 0);
  const Run mechanism = run_noiselearn(
      "account --event mechanism=discrete_laplace,scale=2,coordinates=4,sampling_rate=0.1,count=30 --delta 1e-5 --json",
      dir);
  REQUIRE(mechanism.exit_code == 0);
  const auto t = nlohmann::json::parse(table.out)["epsilon_at_delta"][0],
             m = nlohmann::json::parse(mechanism.out)["epsilon_at_delta"][0];
  CHECK(double(t["epsilon_lower"]) <= double(m["epsilon_upper"]));
  CHECK(double(m["epsilon_lower"]) <= double(t["epsilon_upper"]));
  const Run text = run_noiselearn("account sub/events.yaml --delta 1e-5", dir);
  CHECK_THAT(text.out, Contains("on each of 4 coordinates") && Contains("L-infinity"));
  // A table that is not there, and a sensitivity off its grid: one line naming it, exit 2.
  write(dir / "bad.yaml", "events:\n  - mechanism: table\n    table: absent.csv\n    sensitivity: 1\n");
  const Run absent = run_noiselearn("account bad.yaml", dir);
  CHECK(absent.exit_code == 2);
  CHECK_THAT(absent.err, Contains("absent.csv"));
  const Run off = run_noiselearn("account --event mechanism=table,table=sub/laplace.csv,sensitivity=1.5", dir);
  CHECK(off.exit_code == 2);
  CHECK_THAT(off.err, Contains("sensitivity 1.5"));
}

TEST_CASE(
    "account --calibrate of any event's noise: the Laplace on d coordinates certifies the target, the value "
    "below does not",
    "[cli][account]") {
  const fs::path dir = scratch("account-calibrate-any");
  const Run run = run_noiselearn(
      "account --event mechanism=laplace,noise_multiplier=1,coordinates=20,sampling_rate=0.05,count=100 --delta 1e-5 "
      "--calibrate 3 --json",
      dir);
  REQUIRE(run.exit_code == 0);
  const auto json = nlohmann::json::parse(run.out);
  CHECK(json["key"] == "noise_multiplier");
  const double value = json["value"], below = json["value_below"];
  CHECK(double(json["epsilon_upper"]) <= 3.0);
  CHECK(below < value);
  CHECK(below >= value / 1.0011);
  auto upper_at = [&](double m) {
    const Run r =
        run_noiselearn(fmt::format("account --event mechanism=laplace,noise_multiplier={:.17g},coordinates=20,"
                                   "sampling_rate=0.05,count=100 --delta 1e-5 --json",
                                   m),
                       dir);
    REQUIRE(r.exit_code == 0);
    return double(nlohmann::json::parse(r.out)["epsilon_at_delta"][0]["epsilon_upper"]);
  };
  CHECK(upper_at(value) <= 3.0);
  CHECK(upper_at(below) > 3.0);
  const Run sensitivity = run_noiselearn(
      "account --event mechanism=discrete_laplace,scale=2 --delta 1e-5 --calibrate 1 --calibrate-key sensitivity", dir);
  CHECK(sensitivity.exit_code == 2);
  CHECK_THAT(sensitivity.err, Contains("not a noise parameter"));
}
