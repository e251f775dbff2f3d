#include "core/neighbour_relation.hpp"

#include <fmt/format.h>

#include "core/enum_names.hpp"
#include "core/errors.hpp"
#include "core/nearest_word.hpp"

namespace noiselearn {

constexpr NameTable<NeighbourRelation, 2> kNeighbourRelations{
    {{NeighbourRelation::kAnySequence, "any"}, {NeighbourRelation::kSameDirection, "same-direction"}}};
constexpr NameTable<RecordRelation, 2> kRecordRelations{
    {{RecordRelation::kAddOrRemove, "add_remove"}, {RecordRelation::kReplaceOne, "replace_one"}}};

NeighbourRelation parse_neighbour_relation(const std::string& text) {
  return parse_named(kNeighbourRelations, text, "neighbour relation");
}

std::string to_string(NeighbourRelation relation) { return std::string(name_of(kNeighbourRelations, relation)); }

std::string describe(NeighbourRelation relation) {
  return relation == NeighbourRelation::kAnySequence
             ? "any sequence of query differences in [-s, s], one per release, chosen adaptively"
             : "sequences whose query differences all have the same sign (all in [0, s] or all in [-s, 0])";
}

std::string to_string(RecordRelation relation) { return std::string(name_of(kRecordRelations, relation)); }

RecordRelation parse_record_relation(const std::string& text) {
  if (const auto relation = find_named(kRecordRelations, text)) return *relation;
  const auto names = names_of(kRecordRelations);
  throw InputError(
      fmt::format("unknown relation '{}'{} (known: {})", text, did_you_mean(text, names), fmt::join(names, ", ")));
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
