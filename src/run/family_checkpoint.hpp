#pragma once
// checkpoint.pt of a geometric-tail family run (preconditioned_gradient_optimiser.hpp; io/checkpoint_file.hpp adds the
// header and checksum): JSON with the stage ("warm": the Renyi warm start, "main"), the iteration count and time of
// that stage, alpha, theta = log p_0 .. log p_N (every double written with 17 significant digits, so that a resumed run
// continues from the same point) and the stage's history; for the main stage of a warm-started run also the warm
// start's summary.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "train/preconditioned_gradient.hpp"

namespace noiselearn {

struct FamilyCheckpoint {
  std::string stage;  // "warm" or "main"
  int64_t iteration = 0;
  double seconds = 0.0;
  double alpha = 0.0;
  std::vector<double> theta;
  std::vector<PreconditionedIteration> history;
  nlohmann::json warm;  // main stage after a warm start: the warm start's summary
};

// The history as rows of [iteration, alpha, worst_shift, gamma, objective, step, seconds, constraint_residual].
nlohmann::json history_json(const std::vector<PreconditionedIteration>& history);
std::vector<PreconditionedIteration> history_of(const nlohmann::json& rows);

// The checkpoint as JSON text, what write_checkpoint_file stores.
std::string family_checkpoint_text(const FamilyCheckpoint& checkpoint);

// Reads and checks a checkpoint for `unknowns` log-probabilities (InputError naming the file otherwise).
FamilyCheckpoint read_family_checkpoint(const std::filesystem::path& path, size_t unknowns);

}  // namespace noiselearn
