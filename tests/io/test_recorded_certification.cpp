// What a table's noise.json records of its certificate, read back for `evaluate` and `nl.account(path)`.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "io/recorded_certification.hpp"
#include "scratch_directory.hpp"

using namespace noiselearn;
using nlohmann::json;
using noiselearn::testing::input_error_of;

TEST_CASE("the recorded pair, compositions, queries and accountant are read back", "[io][recorded]") {
  const json metadata = json::parse(R"({
    "pair": {"kind": "additive", "sensitivity": 0.5, "sampling_rate": 1.0},
    "certificate": {"compositions": 12, "neighbours": {"relation": "same-direction"},
                    "delta_at_epsilon": [{"epsilon": 1.0}], "epsilon_at_delta": [{"delta": 1e-6}],
                    "accountant": {"loss_step": 0.001, "max_points": 4096, "several_pairs": "envelope"}}})");
  const RecordedCertification r = recorded_certification(metadata);
  CHECK(r.sensitivity == 0.5);
  CHECK(r.compositions == 12);
  CHECK(r.epsilons == std::vector<double>{1.0});
  CHECK(r.deltas == std::vector<double>{1e-6});
  REQUIRE(r.accountant);
  CHECK(r.accountant->loss_step == 0.001);
  CHECK(r.accountant->max_points == 4096);
}

TEST_CASE("a recorded max_points beyond any count of points is an InputError naming the key", "[io][recorded]") {
  // Converting such a double to an integer would be undefined behaviour.
  for (const char* points : {"1e300", "-1e19", "18446744073709551615"}) {
    INFO(points);
    const json metadata =
        json::parse(std::string(R"({"certificate": {"accountant": {"max_points": )") + points + "}}}");
    CHECK_THAT(input_error_of([&] { recorded_certification(metadata); }),
               Catch::Contains("noise.json: certificate.accountant.max_points") &&
                   Catch::Contains("is not a number of points"));
  }
}
