#include "run/run.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <stdexcept>

#include "core/errors.hpp"
#include "io/atomic_file.hpp"
#include "io/certificate_files.hpp"
#include "io/plots.hpp"
#include "io/run_directory.hpp"
#include "io/run_directory_lock.hpp"
#include "io/run_status.hpp"
#include "io/table_files.hpp"
#include "io/training_kinds.hpp"
#include "run/config_options.hpp"
#include "run/optimiser_factories.hpp"

namespace noiselearn {

namespace fs = std::filesystem;

namespace {

// skip_if_complete: true if the run directory already holds a complete run (io/run_status.hpp) of exactly this
// configuration (its config.yaml is the one this run would write), so that a sweep's job can be run again after a
// kill and trains only what is missing.
bool already_complete(const fs::path& directory, const TrainingConfig& config) {
  const RunStatus status = inspect_run(directory);
  if (status.state == RunState::kMissing) return false;
  if (status.state == RunState::kFailed) {
    spdlog::info("{} holds an incomplete run ({}): training it again", directory.string(), status.reason);
    return false;
  }
  const fs::path recorded = directory / "config.yaml";
  if (!fs::is_regular_file(recorded) || read_file(recorded) != config.to_yaml()) {
    spdlog::info("{} holds a complete run of another configuration: training this one", directory.string());
    return false;
  }
  spdlog::info("{} already holds this run, complete and checksum-verified: skipped (--skip-if-complete)",
               directory.string());
  return true;
}

// The kind the config names (io/optimiser_kinds.cpp); the resolved config has been validated, so it is registered.
const OptimiserKind& optimiser_kind_of(const TrainingConfig& c) {
  const OptimiserKind* kind = find_optimiser_kind(c.optimiser_kind);
  if (kind == nullptr)
    throw std::logic_error(
        fmt::format("optimiser.kind = {} is not registered (io/optimiser_kinds.cpp)", c.optimiser_kind));
  return *kind;
}

// The factory registered under the kind's name (run/optimiser_factories.hpp). The LibTorch optimisers come from
// noiselearn::learners; a program that did not link them is told so (a programming error, not bad input).
std::unique_ptr<RunOptimiser> make_optimiser(const OptimiserKind& kind, const RunOptions& options,
                                             const TrainingConfig& config) {
  const OptimiserFactory factory = optimiser_factory(kind.name);
  if (factory != nullptr) return factory(options, config);
  if (kind.learner_task.empty())
    throw std::logic_error(
        fmt::format("optimiser.kind = {} has no factory: register one in run/optimiser_factories.cpp", kind.name));
  throw std::logic_error(
      fmt::format("{} needs the learners: link noiselearn::learners (or noiselearn::noiselearn), which "
                  "registers them; a link made without CMake calls noiselearn::link_learners() before "
                  "run() (run/link_learners.hpp)",
                  kind.learner_task));
}

}  // namespace

RunSummary run(const RunOptions& options) {
  RunSummary summary;
  const TrainingConfig config = options.resolved_config();
  summary.directory = options.run_directory();
  const fs::path& directory = summary.directory;
  if (options.skip_if_complete && already_complete(directory, config)) {
    summary.skipped = true;
    return summary;
  }
  const OptimiserKind& kind = optimiser_kind_of(config);
  // --resume: the directory is locked before reading what another run could be writing, and must hold this run.
  std::unique_ptr<RunDirectoryLock> lock;
  if (options.resume) {
    const std::string length_key = kind.resumable_length_key(config);
    if (!fs::is_directory(directory))
      throw InputError(fmt::format("--resume: run directory {} does not exist", directory.string()));
    lock = std::make_unique<RunDirectoryLock>(directory);
    if (!fs::exists(directory / "checkpoint.pt"))
      throw InputError(fmt::format("--resume: {} has no checkpoint.pt", directory.string()));
    require_same_run(config, directory, length_key);
  }
  // Everything the config names is built and checked before the run directory comes into being, so that bad
  // input (exit 2) leaves nothing behind.
  const std::unique_ptr<RunOptimiser> optimiser = make_optimiser(kind, options, config);
  if (!options.resume) {
    prepare_run_directory(directory, options.force);
    lock = std::make_unique<RunDirectoryLock>(directory);
  }
  write_file_atomically(directory / "config.yaml", config.to_yaml(), /*overwrite=*/true);

  const OptimisedTable optimised = optimiser->optimise(directory, options.resume);
  const Certificate certificate = optimiser->certify(optimised.table);
  nlohmann::json record = optimised.record;
  record["certificate"] = certificate_json(certificate);
  write_noise_table(optimised.table, directory / "noise.csv", record, /*overwrite=*/true);
  write_certificate_curve(certificate, directory / "certificate.csv", /*overwrite=*/true);
  if (!optimised.history_columns.empty())
    write_numeric_csv(directory / "history.csv", optimised.history_columns, optimised.history_rows, /*overwrite=*/true);
  const std::string comparison = optimiser->compare(optimised, certificate, directory);
  summary.paragraph = optimiser->summary_paragraph(optimised, certificate, comparison, directory);
  // summary.txt last: a run is complete when it is there (io/run_status.hpp).
  write_file_atomically(directory / "summary.txt", summary.paragraph, /*overwrite=*/true);
  if (config.output_plots) spdlog::info("{}", plot_run(directory, /*overwrite=*/true).message);
  summary.table = optimised.table;
  summary.certificate = certificate;
  summary.stopped_early = optimised.stopped_early;
  summary.stop_reason = optimised.stop_reason;
  return summary;
}

}  // namespace noiselearn
