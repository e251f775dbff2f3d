#include "core/neighbour_relation.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/nearest_word.hpp"

namespace noiselearn {

NeighbourRelation parse_neighbour_relation(const std::string& text) {
  if (text == "any") return NeighbourRelation::kAnySequence;
  if (text == "same-direction") return NeighbourRelation::kSameDirection;
  throw InputError(fmt::format("unknown neighbour relation '{}' (valid: any, same-direction)", text));
}

std::string to_string(NeighbourRelation relation) {
  return relation == NeighbourRelation::kAnySequence ? "any" : "same-direction";
}

std::string describe(NeighbourRelation relation) {
  return relation == NeighbourRelation::kAnySequence
             ? "any sequence of query differences in [-s, s], one per release, chosen adaptively"
             : "sequences whose query differences all have the same sign (all in [0, s] or all in [-s, 0])";
}

std::string to_string(RecordRelation relation) {
  return relation == RecordRelation::kAddOrRemove ? "add_remove" : "replace_one";
}

RecordRelation parse_record_relation(const std::string& text) {
  if (text == "add_remove") return RecordRelation::kAddOrRemove;
  if (text == "replace_one") return RecordRelation::kReplaceOne;
  throw InputError(fmt::format("unknown relation '{}'{} (known: add_remove, replace_one)", text,
                               did_you_mean(text, {"add_remove", "replace_one"})));
}

std::string describe(const Neighbours& neighbours) {
  if (!neighbours.records) return describe(neighbours.sequences);
  const std::string sequences = neighbours.sequences == NeighbourRelation::kAnySequence
                                    ? "any adaptive sequence of queries"
                                    : "sequences of queries that all move the same way";
  return *neighbours.records == RecordRelation::kAddOrRemove
             ? "data sets that differ by adding or removing one record (add_remove), " + sequences
             : "data sets that differ by replacing one record (replace_one), " + sequences;
}

}  // namespace noiselearn
