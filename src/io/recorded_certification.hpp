#pragma once
// What a table's noise.json records of how it was certified: the pair (kind, sensitivity, sampling rate), the
// neighbour relation, the number of compositions, the queries and the accountant's options. A command or a Python
// call that certifies an existing table again (`noiselearn evaluate` and `sample --quantised-out` of a run's
// noise.csv, `noiselearn.account("runs/x/noise.csv")`) starts from these, so that it repeats the certificate the
// run printed unless told otherwise; each setting the caller gives replaces the recorded one.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "accounting/accountant_options.hpp"
#include "core/dominating_pair.hpp"

namespace noiselearn {

struct RecordedCertification {
  std::optional<double> sensitivity;
  std::optional<PairKind> pair_kind;
  std::optional<double> sampling_rate;
  std::optional<NeighbourRelation> neighbours;
  std::optional<int64_t> compositions;
  std::vector<double> epsilons, deltas;
  // Every field when noise.json has the certificate's "accountant" (written since 0.1.0's noise table format 1
  // files carry it); from an older file, the discretisation's loss step, tail mass and methods over the defaults.
  std::optional<AccountantOptions> accountant;

  bool empty() const;
  // "sensitivity 1, pair subsampled (q 0.1), 500 compositions, loss step 0.001, ..." : what was taken from the file.
  std::string describe() const;
};

// The settings `metadata` (a table's noise.json) records; fields it lacks stay unset. A recorded value that is not
// valid (a hand-edited file) is an InputError naming the key.
RecordedCertification recorded_certification(const nlohmann::json& metadata);

}  // namespace noiselearn
