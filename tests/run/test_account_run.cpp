// run_account (run/account_run.hpp), what `noiselearn account` prints: the report's text and JSON come from the same
// numbers as the accounting calls they report, and DP-SGD's event is calibrated and named as DP-SGD.
#include <catch2/catch.hpp>

#include <string>

#include "accounting/certificate.hpp"
#include "accounting/dp_sgd.hpp"
#include "core/errors.hpp"
#include "io/certificate_files.hpp"
#include "run/account_run.hpp"

using namespace noiselearn;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

ReleaseDescription one_event(const EventFields& fields) {
  ReleaseDescription description;
  description.events.push_back(parse_release_event(fields, "test"));
  description.validate();
  return description;
}

}  // namespace

TEST_CASE("account report: the certificate of the events, as text and as the certificate's JSON", "[run][account]") {
  AccountRunOptions o;
  o.description = one_event({{"mechanism", "gaussian"}, {"noise_multiplier", "2"}, {"count", "10"}});
  o.deltas = {1e-5};
  const AccountReport report = run_account(o);
  REQUIRE(report.certificate);
  CHECK_FALSE(report.calibration);
  CHECK(report.events == std::vector<std::string>{o.description.events.front().describe()});
  CHECK_THAT(report.report(), StartsWith("event 1: " + report.events.front() + "\n"));
  CHECK_THAT(report.report(), Contains(report.certificate->report()));
  CHECK(report.json() == certificate_json(*report.certificate));
  CHECK(report.certificate->compositions == 10);
  // No query: epsilon at the default deltas.
  o.deltas.clear();
  CHECK(run_account(o).certificate->epsilons.size() == kDefaultCertificateDeltas.size());
}

TEST_CASE("account report: DP-SGD's event is calibrated as calibrate_noise_multiplier does and named as DP-SGD",
          "[run][account]") {
  AccountRunOptions o;
  o.description =
      one_event({{"mechanism", "gaussian"}, {"noise_multiplier", "3"}, {"sampling_rate", "0.1"}, {"count", "20"}});
  o.deltas = {1e-5};
  o.calibrate = 2.0;
  o.calibration.relative_tolerance = 1e-2;
  const AccountReport report = run_account(o);
  REQUIRE(report.calibration);
  const AccountCalibration& c = *report.calibration;
  CHECK(c.dp_sgd);
  CHECK(c.key == "noise_multiplier");
  const NoiseCalibration direct = calibrate_noise_multiplier(2.0, 1e-5, 0.1, 20, {}, o.calibration);
  CHECK(c.result.noise_multiplier == direct.noise_multiplier);
  CHECK(c.result.below == direct.below);
  CHECK(c.result.evaluations == direct.evaluations);
  CHECK_THAT(report.report(), StartsWith("least noise multiplier: ") &&
                                  Contains("(Gaussian, Poisson sampling at rate 0.1, 20 steps, add or remove one)") &&
                                  Contains("\nnoise multiplier "));
  const nlohmann::json json = report.json();
  CHECK(json["noise_multiplier"] == direct.noise_multiplier);
  CHECK(json["noise_multiplier_below"] == direct.below);
  CHECK(json["steps"] == 20);
  CHECK_FALSE(json.contains("key"));
}

TEST_CASE("account report: any other event is calibrated by calibrate_event and named by its key", "[run][account]") {
  AccountRunOptions o;
  o.description =
      one_event({{"mechanism", "laplace"}, {"noise_multiplier", "4"}, {"sampling_rate", "0.1"}, {"count", "5"}});
  o.deltas = {1e-5};
  o.calibrate = 2.0;
  o.calibration.relative_tolerance = 1e-2;
  const AccountReport report = run_account(o);
  REQUIRE(report.calibration);
  const AccountCalibration& c = *report.calibration;
  CHECK_FALSE(c.dp_sgd);
  CHECK(c.key == "noise_multiplier");
  const NoiseCalibration direct = calibrate_event(o.description, "noise_multiplier", 2.0, 1e-5, {}, o.calibration);
  CHECK(c.result.noise_multiplier == direct.noise_multiplier);
  CHECK_THAT(report.report(), StartsWith("least noise_multiplier: ") && Contains(c.event));
  const nlohmann::json json = report.json();
  CHECK(json["value"] == direct.noise_multiplier);
  CHECK(json["value_below"] == direct.below);
  CHECK(json["key"] == "noise_multiplier");
  CHECK(json["event"] == c.event);
}

TEST_CASE("account report: a calibration takes one event and exactly one delta", "[run][account][errors]") {
  AccountRunOptions o;
  o.description = one_event({{"mechanism", "gaussian"}, {"noise_multiplier", "3"}, {"count", "2"}});
  o.calibrate = 1.0;
  CHECK_THROWS_WITH(run_account(o), Contains("exactly one --delta"));
  o.deltas = {1e-5};
  o.epsilons = {1.0};
  CHECK_THROWS_WITH(run_account(o), Contains("exactly one --delta"));
  o.epsilons.clear();
  o.description.events.push_back(o.description.events.front());
  CHECK_THROWS_WITH(run_account(o), Contains("takes one event"));
}
