#pragma once
// Who the neighbours of a certificate are, in one type (Neighbours) of two parts:
//
// - the sequences of query differences (NeighbourRelation), for every certificate. kAnySequence (default): in every
//   release the query difference f_i(D') - f_i(D) may be any value in [-s, s], chosen adaptively per release (mixed
//   signs and magnitudes). For additive noise the single-release pairs are (p, p shifted by d), d in {-k..k}; their
//   privacy profiles are dominated by one pair, the profile envelope of all of them (a dominating pair in the sense of
//   Zhu, Dong, Wang, "Optimal accounting of differential privacy via characteristic function", AISTATS 2022, Def. 7),
//   and the adaptive composition of mechanisms with dominating pairs is dominated by the product of the pairs (their
//   Thm. 10). For the subsampled mixture the added/removed record is the same in every release, so the two directions
//   stay separate, but the sign of its clipped contribution may change: each direction takes the envelope over both
//   signs. kSameDirection: every release moves the same way (all differences in [0, s], or all in [-s, 0]; e.g. one
//   user added to monotone counters). The guarantee is the worse of the two all-up / all-down compositions.
// - the data sets (RecordRelation, dp_accounting's NeighboringRelation), for a mechanism accounted without a grid:
//   add or remove one record, or replace one. A table's certificate covers its shifts instead (no record relation).
//
// (Privacy boosting's bound on neighbouring answers, a sensitivity on a lattice, is AnswerSensitivity in
// accounting/privacy_boosting_accountant.hpp: a property of the query, not of the data sets.)
#include <optional>
#include <string>

namespace noiselearn {

enum class NeighbourRelation { kAnySequence, kSameDirection };
NeighbourRelation parse_neighbour_relation(const std::string& text);  // "any", "same-direction"
std::string to_string(NeighbourRelation relation);
// One line for reports: what the certificate covers.
std::string describe(NeighbourRelation relation);

enum class RecordRelation { kAddOrRemove, kReplaceOne };
std::string to_string(RecordRelation relation);  // "add_remove", "replace_one"
RecordRelation parse_record_relation(const std::string& text);

struct Neighbours {
  NeighbourRelation sequences = NeighbourRelation::kAnySequence;
  std::optional<RecordRelation> records;  // set for mechanisms without a grid; tables cover their shifts
};
// What a certificate covers, in one line: the record relation and its sequences where there is one, else the
// sequences.
std::string describe(const Neighbours& neighbours);

}  // namespace noiselearn
