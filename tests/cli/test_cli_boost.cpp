// noiselearn boost: the JSON report carries the exact certificate of the PB mechanism, recomputed here through the
// library for the same parameters, beside the Gaussian meeting the same constraint and the paper's heuristic; bad
// parameters are refused with exit 2 naming the option; --out is atomic and never overwrites without --force.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "accounting/privacy_boosting_accountant.hpp"
#include "cli/run_noiselearn.hpp"

using namespace noiselearn;
using namespace noiselearn::testing;

TEST_CASE("boost: the report's certificate is the library's, and it beats the Gaussian meeting the constraint",
          "[cli]") {
  const auto dir = scratch("boost-report");
  const Run run = run_noiselearn(
      "boost --scale 6.5 --tau 10 --rho 0.9 --delta 1e-5 --epsilon 0.5 --loss-step 1e-3 --out report.json", dir);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  std::ifstream in(dir / "report.json");
  const nlohmann::json report = nlohmann::json::parse(in);
  AccountantOptions options;
  options.loss_step = 1e-3;
  const PrivacyBoostingMechanism m({BoostingKernelKind::kGaussian, 6.5},
                                   PreferredRegion{PreferredRegionKind::kInterval, 10.0, 0, 0, 0}, 0.9);
  const PrivacyBoostingBounds b = privacy_boosting_bounds(m, AnswerSensitivity{}, options);
  const auto& row = report["certificate"]["at_delta"][0];
  CHECK(row["epsilon_upper"].get<double>() == b.bounds.epsilon_upper(1e-5));
  CHECK(row["epsilon_lower"].get<double>() == b.bounds.epsilon_lower(1e-5));
  CHECK(row["gaussian_sigma"].get<double>() == Approx(6.079568).epsilon(1e-7));
  CHECK(row["gaussian_epsilon"].get<double>() == Approx(0.586011).margin(1e-6));
  CHECK(row["epsilon_upper"].get<double>() < row["gaussian_epsilon"].get<double>());
  CHECK(row["paper_heuristic_epsilon"].get<double>() == paper_heuristic_epsilon(m, 1.0, 1e-5));
  CHECK(report["certificate"]["at_epsilon"][0]["delta_upper"].get<double>() == b.bounds.delta_upper(0.5));
  CHECK(report["mechanism"]["q"].get<double>() == m.q());
  // What is printed is what is certified.
  CHECK(run.out.find(fmt::format("certified epsilon in [{:.6f}, {:.6f}]", b.bounds.epsilon_lower(1e-5),
                                 b.bounds.epsilon_upper(1e-5))) != std::string::npos);
  // --out is never overwritten without --force.
  const Run again = run_noiselearn("boost --scale 6.5 --out report.json", dir);
  CHECK(again.exit_code == 2);
  CHECK(error_line(again).find("report.json") != std::string::npos);
}

TEST_CASE("boost: bad parameters are refused with exit 2 and a line naming them", "[cli]") {
  const auto dir = scratch("boost-bad");
  const std::vector<std::pair<std::string, std::string>> cases{
      {"boost --scale 6 --rho 1.5", "rho"},
      {"boost --scale 6 --region absolute", "absolute"},
      {"boost --scale 6 --sensitivity 1.5", "not a whole number"},
      {"boost --scale -2", "scale"},
      {"boost --scale 6 --region relative --theta 0", "theta"},
      {"boost --scale 6 --region fixed --lower 3 --upper 1", "fixed region"},
      {"boost --scale 6 --kernel cauchy", "cauchy"},
      {"boost --scale 6 --delta 2", "delta"},
      {"boost --scale 6 -n 0", "compositions"},
      {"boost --scale 0 --rho 1", "rho"},
  };
  for (const auto& [arguments, culprit] : cases) {
    INFO(arguments);
    const Run run = run_noiselearn(arguments, dir);
    CHECK(run.exit_code == 2);
    CHECK(error_line(run).find(culprit) != std::string::npos);
    CHECK(std::count(run.err.begin(), run.err.end(), '\n') <= 2);
  }
}

TEST_CASE("boost: work that would not finish is refused up front with exit 2, naming what to raise", "[cli]") {
  const auto dir = scratch("boost-huge");
  // 1000 answer pairs of up to 1000 steps: about 2.7e10 loss pieces.
  const Run run = run_noiselearn("boost --scale 6 --sensitivity 1000", dir);
  CHECK(run.exit_code == 2);
  CHECK(error_line(run).find("raise the loss step") != std::string::npos);
  // A relative region so thin that its scan would never end.
  const Run thin = run_noiselearn("boost --scale 6 --region relative --theta 1e-6 --tau 1", dir);
  CHECK(thin.exit_code == 2);
  CHECK(error_line(thin).find("theta") != std::string::npos);
}
