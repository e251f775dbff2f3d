#pragma once
// What a run did (the Summary half of Options -> Summary): the certified table, its certificate, the one-paragraph
// summary written to summary.txt, and whether the optimiser stopped early (NaN guard). report() is what
// `noiselearn train` prints.
#include <filesystem>
#include <optional>
#include <string>

#include "accounting/certificate.hpp"
#include "core/noise_table.hpp"

namespace noiselearn {

struct RunSummary {
  std::filesystem::path directory;
  bool skipped = false;  // RunOptions::skip_if_complete found this run complete: nothing was done
  std::optional<NoiseTable> table;
  std::optional<Certificate> certificate;
  std::string paragraph;  // summary.txt
  // The optimiser stopped before its end (a NaN guard): the last good table and its certificate were still
  // written, but the run is not complete (io/run_status.hpp).
  bool stopped_early = false;
  std::string stop_reason;

  // The certificate's report and the paragraph; for a skipped run one line saying so.
  std::string report() const;
};

}  // namespace noiselearn
