#pragma once
// Whether a `noiselearn train` run directory is finished: what `train --skip-if-complete` skips and what
// `collect` calls done. A run is complete when its last file (summary.txt) is there, its table pair reads back
// with a matching checksum (the CSV is the one its noise.json describes), and the training did not stop early.
// Anything less is an interrupted or failed run, and no run directory at all is a run that never started.
#include <filesystem>
#include <string>

namespace noiselearn {

enum class RunState { kDone, kFailed, kMissing };

const char* to_string(RunState state);  // "done", "failed", "missing"

struct RunStatus {
  RunState state = RunState::kMissing;
  std::string reason;  // why a run is not done, one line ("" when done)
};

RunStatus inspect_run(const std::filesystem::path& run_directory);

}  // namespace noiselearn
