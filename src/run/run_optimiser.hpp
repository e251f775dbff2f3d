#pragma once
// The one interface through which every optimiser plugs into a run (run/run.hpp): Adam with decays on the neural
// models (adam_optimiser.hpp), the preconditioned gradient on the geometric-tail families
// (preconditioned_gradient_optimiser.hpp), the convex Hybrid Renyi DP program on one-sided tables
// (hybrid_renyi_optimiser.hpp), and any that come later.
//
// The run owns what they share: the config resolved and checked before the run directory exists, the directory
// prepared and locked, config.yaml, --resume's checks, the files every run writes (noise.csv/.json with the
// certificate, certificate.csv, history.csv, summary.txt, plots) and the NaN-guard outcome. An optimiser owns what
// differs: how it learns (its target search and checkpoints included), which pair and certificate request its
// table is certified under, what it is compared with, and how its summary reads. An optimiser is constructed with
// everything checked (InputError for bad input, before any file is written) and then used once.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "accounting/certificate.hpp"
#include "core/noise_table.hpp"
#include "run/run_options.hpp"

namespace noiselearn {

// What an optimiser hands back: the table to certify and what noise.json and history.csv record about it.
struct OptimisedTable {
  explicit OptimisedTable(NoiseTable learned) : table(std::move(learned)) {}
  NoiseTable table;
  nlohmann::json record;  // noise.json's keys besides the certificate: model, loss, pair, training, utility, ...
  std::vector<std::string> history_columns;  // history.csv; none: no history.csv
  std::vector<std::vector<double>> history_rows;
  bool stopped_early = false;  // a NaN guard stopped it: `table` is the last good one
  std::string stop_reason;
};

class RunOptimiser {
 public:
  virtual ~RunOptimiser() = default;
  // Learns (or solves for) the table; `resume` continues from the run directory's checkpoint.pt.
  virtual OptimisedTable optimise(const std::filesystem::path& directory, bool resume) = 0;
  // The table's certificate from the certified accountant (never from the training loss).
  virtual Certificate certify(const NoiseTable& table) const = 0;
  // Certifies the references the table is measured against, writes comparison.csv (and whatever else the
  // comparison has) into `directory`, and returns what the summary says of it.
  virtual std::string compare(const OptimisedTable& optimised, const Certificate& certificate,
                              const std::filesystem::path& directory) const = 0;
  // summary.txt: one paragraph, with the run directory named.
  virtual std::string summary_paragraph(const OptimisedTable& optimised, const Certificate& certificate,
                                        const std::string& comparison,
                                        const std::filesystem::path& directory) const = 0;
};

}  // namespace noiselearn
