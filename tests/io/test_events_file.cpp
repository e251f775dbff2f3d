// Events files (`noiselearn account events.yaml`) read in-process: what they describe and how they are refused.
#include <catch2/catch.hpp>

#include "io/events_file.hpp"
#include "scratch_directory.hpp"

using namespace noiselearn;
using noiselearn::testing::input_error_of;

TEST_CASE("an events file gives its relation and its events, each with its keys", "[io][events]") {
  const ReleaseDescription d = parse_events_yaml(
      "relation: replace_one\n"
      "events:\n"
      "  - {mechanism: gaussian, noise_multiplier: 2, batch_size: 256, dataset_size: 60000, count: 100}\n"
      "  - {mechanism: laplace, noise_multiplier: 1.5}\n",
      "e.yaml");
  CHECK(d.relation == RecordRelation::kReplaceOne);
  REQUIRE(d.events.size() == 2);
  CHECK(d.events[0].mechanism == "gaussian");
  CHECK(d.events[0].count == 100);
  CHECK(d.events[0].sampling.kind == SamplingKind::kWithoutReplacement);
  CHECK(d.events[1].mechanism == "laplace");
  CHECK(d.events[1].count == 1);
}

TEST_CASE("a map or a list written as a key of an events file is an InputError naming the file", "[io][events]") {
  CHECK_THAT(input_error_of([] { parse_events_yaml("{relation: 1}: add_remove\nevents: []\n", "e.yaml"); }),
             Catch::StartsWith("e.yaml: a key must be a plain name, not a map"));
  CHECK_THAT(input_error_of([] {
               parse_events_yaml("events:\n  - {mechanism: laplace, noise_multiplier: 1.5, [count]: 2}\n", "e.yaml");
             }),
             Catch::StartsWith("e.yaml, event 1: a key must be a plain name, not a list"));
}
