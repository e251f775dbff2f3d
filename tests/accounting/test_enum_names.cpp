#include <catch2/catch.hpp>

#include <string>

#include "accounting/accountant_options.hpp"
#include "accounting/sampled_release.hpp"
#include "core/errors.hpp"
#include "refusal_message.hpp"

using namespace noiselearn;
using noiselearn::testing::message_of;

TEST_CASE("the accountant's method and sampling names round-trip, and unknown ones are refused as before",
          "[accounting][enum]") {
  for (auto m : {SeveralPairsMethod::kAuto, SeveralPairsMethod::kAdaptive, SeveralPairsMethod::kEnvelope})
    CHECK(parse_several_pairs_method(to_string(m)) == m);
  for (auto m : {PessimisticMethod::kConnectTheDots, PessimisticMethod::kRoundUp})
    CHECK(parse_pessimistic_method(to_string(m)) == m);
  for (auto m : {OptimisticMethod::kMergeToGrid, OptimisticMethod::kRoundDown})
    CHECK(parse_optimistic_method(to_string(m)) == m);
  for (auto k : {SamplingKind::kNone, SamplingKind::kPoisson, SamplingKind::kWithoutReplacement,
                 SamplingKind::kRandomAllocation})
    CHECK(parse_sampling_kind(to_string(k)) == k);
  CHECK(message_of([](const std::string& t) { parse_several_pairs_method(t); }, "blocks") ==
        "unknown several-pairs method 'blocks' (valid: auto, adaptive, envelope)");
  CHECK(message_of([](const std::string& t) { parse_sampling_kind(t); }, "poison") ==
        "unknown sampling 'poison'; did you mean 'poisson'? (known: none, poisson, without_replacement, "
        "random_allocation)");
}
