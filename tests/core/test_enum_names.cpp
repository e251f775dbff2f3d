#include <catch2/catch.hpp>

#include <string>

#include "core/dominating_pair.hpp"
#include "core/enum_names.hpp"
#include "core/errors.hpp"
#include "core/neighbour_relation.hpp"
#include "core/noise_table.hpp"
#include "core/privacy_boosting.hpp"
#include "core/utility.hpp"
#include "refusal_message.hpp"

using namespace noiselearn;
using noiselearn::testing::message_of;

namespace {
enum class Colour { kRed, kGreen, kBlue };
constexpr NameTable<Colour, 3> kColours{{{Colour::kRed, "red"}, {Colour::kGreen, "green"}, {Colour::kBlue, "blue"}}};

}  // namespace

TEST_CASE("a name table maps each value to its name and back, and refuses other names listing the valid ones",
          "[core][enum]") {
  for (Colour c : {Colour::kRed, Colour::kGreen, Colour::kBlue})
    CHECK(parse_named(kColours, std::string(name_of(kColours, c)), "colour") == c);
  CHECK(name_of(kColours, static_cast<Colour>(7)) == "?");
  CHECK_FALSE(find_named(kColours, "Red").has_value());
  CHECK(names_of(kColours) == std::vector<std::string>{"red", "green", "blue"});
  CHECK_THROWS_WITH(parse_named(kColours, "mauve", "colour"), "unknown colour 'mauve' (valid: red, green, blue)");
}

TEST_CASE("every core enumeration read from configs and options round-trips through its names", "[core][enum]") {
  for (auto k : {SupportKind::kSymmetric, SupportKind::kGeneral, SupportKind::kOneSided})
    CHECK(parse_support_kind(to_string(k)) == k);
  for (auto p : {ShiftPolicy::kAuto, ShiftPolicy::kSingle, ShiftPolicy::kAll})
    CHECK(parse_shift_policy(to_string(p)) == p);
  for (auto k : {PairKind::kAdditive, PairKind::kSubsampledMixture}) CHECK(parse_pair_kind(to_string(k)) == k);
  for (auto k : {BoostingKernelKind::kGaussian, BoostingKernelKind::kLaplace})
    CHECK(parse_boosting_kernel(to_string(k)) == k);
  for (auto k : {PreferredRegionKind::kInterval, PreferredRegionKind::kFixed, PreferredRegionKind::kRelative})
    CHECK(parse_preferred_region(to_string(k)) == k);
  for (auto k : {UtilityKind::kL1, UtilityKind::kL2, UtilityKind::kSecondMoment, UtilityKind::kTailProbability})
    CHECK(parse_utility_kind(to_string(k)) == k);
  for (auto r : {NeighbourRelation::kAnySequence, NeighbourRelation::kSameDirection})
    CHECK(parse_neighbour_relation(to_string(r)) == r);
  for (auto r : {RecordRelation::kAddOrRemove, RecordRelation::kReplaceOne})
    CHECK(parse_record_relation(to_string(r)) == r);
}

TEST_CASE("the refusals of unknown names read as before the name tables", "[core][enum]") {
  CHECK(message_of([](const std::string& t) { parse_support_kind(t); }, "odd") ==
        "unknown support kind 'odd' (valid: symmetric, general, one-sided)");
  CHECK(message_of([](const std::string& t) { parse_utility_kind(t); }, "l3") ==
        "unknown utility 'l3' (valid: l1, l2, second-moment, tail-probability)");
  CHECK(message_of([](const std::string& t) { parse_record_relation(t); }, "add_remov") ==
        "unknown relation 'add_remov'; did you mean 'add_remove'? (known: add_remove, replace_one)");
}
