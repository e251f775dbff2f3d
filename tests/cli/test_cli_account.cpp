// noiselearn account: the DP-SGD use case in one command, events files, calibration, and bad input (one line naming
// the culprit, exit 2). The numbers are checked against what they mean: the printed bracket holds the value of a
// finer accounting, and the calibrated noise multiplier certifies the target while one a tolerance below does not.
#include <catch2/catch.hpp>

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
      "account --event mechanism=gaussian,noise_multiplier=1.1,sampling_rate=0.0042666667,count=2000 --delta 1e-5 --json", dir);
  REQUIRE(run.exit_code == 0);
  const auto json = nlohmann::json::parse(run.out);
  const double lower = json["epsilon_at_delta"][0]["epsilon_lower"], upper = json["epsilon_at_delta"][0]["epsilon_upper"];
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
      "account --event mechanism=gaussian,noise_multiplier=1.1,sampling_rate=0.0042666667,count=2000 --delta 1e-5", dir);
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Contains("Poisson sampling at rate 0.00426667, 2000 releases") &&
                           Contains("adding or removing one record") && Contains("delta = 1e-05"));
}

TEST_CASE("account: an events file with two phases, and replace one with sampling without replacement", "[cli][account]") {
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
  const double exact = 0.5 * std::erfc((eps * m - 0.5 / m) / std::sqrt(2.0)) - std::exp(eps) * 0.5 * std::erfc((eps * m + 0.5 / m) / std::sqrt(2.0));
  CHECK(double(json["delta_at_epsilon"][0]["delta_lower"]) <= exact * (1 + 1e-9));
  CHECK(double(json["delta_at_epsilon"][0]["delta_upper"]) >= exact * (1 - 1e-9));
  write(dir / "wor.yaml",
        "relation: replace_one\n"
        "events:\n"
        "  - mechanism: gaussian\n    noise_multiplier: 2\n    batch_size: 256\n    dataset_size: 60000\n    count: 1000\n");
  const Run wor = run_noiselearn("account wor.yaml --delta 1e-5", dir);
  REQUIRE(wor.exit_code == 0);
  CHECK_THAT(wor.out, Contains("batches of 256 of 60000 without replacement") && Contains("replacing one record") &&
                          Contains("profile envelope of remove"));
}

TEST_CASE("account --calibrate: the least noise multiplier certifies the target, the one below does not", "[cli][account]") {
  const fs::path dir = scratch("account-calibrate");
  const Run run = run_noiselearn(
      "account --event mechanism=gaussian,noise_multiplier=1,sampling_rate=0.01,count=1000 --delta 1e-5 --calibrate 2 --json",
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
  refused("account --event mechanism=gaussian,noise_multiplier=1,sampling_rate=1.5", "sampling_rate 1.5 must be in (0, 1]");
  refused("account --event mechanism=gaussian,noise_multiplier=1,batch_size=70,dataset_size=60 --relation replace_one",
          "batch_size 70 must be between 1 and dataset_size 60");
  refused("account --event mechanism=gaussian,noise_multiplier=1,count=2.5", "count must be a whole number");
  refused("account --event mechanism=gaussian,noise_multiplier=1,count=-1", "count must be a whole number");
  refused("account --event mechanism=gaussian,noise_multiplier=1 --delta 1.5", "delta");
  refused("account --event mechanism=gausian,noise_multiplier=1", "did you mean 'gaussian'");
  refused("account --event mechanism=gaussian,noise_multiplier=1,sampling_rate=0.1 --relation replace_one",
          "Poisson sampling is accounted under relation add_remove");
  refused("account --event mechanism=gaussian,noise_multiplier=1,sampling_rate=0.01,count=100 --delta 1e-5 --calibrate 1e-6",
          "no noise multiplier up to 1000 reaches epsilon 1e-06");
  refused("account", "no events");
  write(dir / "bad.yaml", "relation: add_remove\nevents:\n  - mechanism: gaussian\n    noise_multiplier: 1\n    sampling_rat: 0.1\n");
  refused("account bad.yaml", "bad.yaml, event 1: unknown key 'sampling_rat'; did you mean 'sampling_rate'?");
  write(dir / "bad2.yaml", "relaton: add_remove\nevents: []\n");
  refused("account bad2.yaml", "unknown key 'relaton'; did you mean 'relation'?");
  write(dir / "bad3.yaml", "events:\n  - mechanism: laplace\n    noise_multiplier: [1, 2]\n");
  refused("account bad3.yaml", "bad3.yaml, event 1: noise_multiplier must be a single value");
  refused("account missing.yaml", "missing.yaml: cannot read the events file");
}
