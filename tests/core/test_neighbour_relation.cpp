// Who the neighbours are (core/neighbour_relation.hpp): one type for a table's query-difference sequences and a
// mechanism's record relation; the names round-trip, a typo is refused naming the nearest, and the one-line
// description says both parts.
#include <catch2/catch.hpp>

#include <string>

#include "core/errors.hpp"
#include "core/neighbour_relation.hpp"

using namespace noiselearn;
using Catch::Matchers::Contains;

TEST_CASE("neighbour relations: names round-trip and typos are refused", "[core][neighbours]") {
  for (NeighbourRelation r : {NeighbourRelation::kAnySequence, NeighbourRelation::kSameDirection})
    CHECK(parse_neighbour_relation(to_string(r)) == r);
  for (RecordRelation r : {RecordRelation::kAddOrRemove, RecordRelation::kReplaceOne})
    CHECK(parse_record_relation(to_string(r)) == r);
  CHECK_THROWS_AS(parse_neighbour_relation("anything"), InputError);
  CHECK_THROWS_WITH(parse_record_relation("add_remov"), Contains("did you mean 'add_remove'"));
}

TEST_CASE("neighbours: a table's certificate covers its sequences, a mechanism's also its record relation",
          "[core][neighbours]") {
  Neighbours table;
  CHECK(describe(table) == describe(NeighbourRelation::kAnySequence));
  table.sequences = NeighbourRelation::kSameDirection;
  CHECK_THAT(describe(table), Contains("same sign"));
  const Neighbours add_remove{NeighbourRelation::kAnySequence, RecordRelation::kAddOrRemove};
  CHECK(describe(add_remove) ==
        "data sets that differ by adding or removing one record (add_remove), any adaptive sequence of queries");
  const Neighbours replace{NeighbourRelation::kAnySequence, RecordRelation::kReplaceOne};
  CHECK_THAT(describe(replace), Contains("replacing one record (replace_one)"));
}
