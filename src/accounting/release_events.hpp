#pragma once
// What is released, described once (in the spirit of dp_accounting's DpEvent): a list of events, each a mechanism
// (mechanism_pair.hpp, by its registered name), how the batch is sampled, and how many times it is released; all under
// one neighbour relation. The CLI reads it from YAML (`noiselearn account events.yaml`), Python from a list of dicts;
// both hand key/value text to parse_release_event, so a key means the same everywhere.
//
//   relation: add_remove            # or replace_one
//   events:
//     - mechanism: gaussian
//       noise_multiplier: 1.1
//       sampling: poisson           # none (default), poisson, without_replacement
//       sampling_rate: 0.0042666667 # poisson
//       count: 14063                # releases (default 1)
//     - mechanism: gaussian         # a second phase with another noise
//       noise_multiplier: 2.0
//       batch_size: 256             # without_replacement: batch_size of dataset_size (replace_one only)
//       dataset_size: 60000
//       count: 100
//     - mechanism: table           # any noise table, per coordinate of a gradient (L-infinity clipping)
//       table: learned.csv         # a path (relative to the events file)
//       sensitivity: 0.6
//       coordinates: 1210          # d coordinates, each with its own noise (default 1)
//       sampling_rate: 0.01
//     - mechanism: gaussian         # fixed batches of shuffled data: each record in exactly one step per epoch
//       noise_multiplier: 1.0
//       sampling: random_allocation # steps_per_epoch alone says it too
//       steps_per_epoch: 1000
//       count: 10000                # steps: 10 epochs
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "accounting/accountant_options.hpp"
#include "accounting/mechanism_pair.hpp"
#include "accounting/pair_accountant.hpp"
#include "accounting/sampled_release.hpp"

namespace noiselearn {

struct ReleaseEvent {
  std::string mechanism;                           // a registered kind (mechanism_kinds())
  MechanismValues values;                          // its number parameters, defaults filled in
  MechanismTables tables;                          // its table parameters, read
  std::map<std::string, std::string> table_paths;  // ... and the paths they were read from (for describe)
  Sampling sampling;
  int64_t count = 1;
  // The mechanism on each of d coordinates with independent noise, neighbours differing by at most the sensitivity in
  // each (per-coordinate, L-infinity, clipping); sampling mixes the d-fold products (coordinate_product.hpp).
  int64_t coordinates = 1;
  std::string describe() const;
  // The single releases composed: count, or the epochs (count / steps_per_epoch) under random allocation, whose
  // single release is one epoch (random_allocation.hpp).
  int64_t compositions() const;
};

struct ReleaseDescription {
  RecordRelation relation = RecordRelation::kAddOrRemove;
  std::vector<ReleaseEvent> events;
  void validate() const;  // at least one event, every sampling valid with the relation, total count within the limit
};

using EventFields = std::vector<std::pair<std::string, std::string>>;

// The keys every event has besides its mechanism's parameters.
const std::vector<MechanismParameter>& event_keys();

// One event from key/value text. `sampling` may be left out when the keys say it (sampling_rate: poisson; batch_size
// and dataset_size: without_replacement). Unknown keys, missing ones and bad values are InputErrors that start with
// `where` and name the key. Table parameters (the table mechanism's `table`) are read with `read_table`.
ReleaseEvent parse_release_event(const EventFields& fields, const std::string& where,
                                 const TableReader& read_table = {});

// Certified bounds of the whole description: one event is composed with compose_bounds (tilted refinement and the
// per-query decisions included); several are a heterogeneous composition. With queries under several_pairs auto, one
// event's loss step is halved (at most three times) while the bracket the discretisation is predicted to make at a
// query (n times the difference of the upper and lower single-release PLDs' means under the query's Chernoff tilt,
// relative) exceeds adaptive_skip_width, then while it is above an eighth of one release's loss spread, as far as
// max_points allows (loss_step_choice.hpp); the result's `options` hold the step used. Several events with queries
// (under several_pairs auto): every part at half the finest step any event chooses alone, the parts' discretisation
// errors adding up.
PairBounds account_events(const ReleaseDescription& description, const AccountantOptions& options,
                          const AccountingQueries& queries = {});

// The single release of one event with the loss step the default chooses for `queries` after event.count releases
// (as account_events does; `options` of the result hold it).
PairBounds event_single_release(const ReleaseEvent& event, RecordRelation relation, const AccountantOptions& options,
                                const AccountingQueries& queries);

// The single release of one event (what account_events composes).
PairBounds event_release_bounds(const ReleaseEvent& event, RecordRelation relation, const AccountantOptions& options);

}  // namespace noiselearn
