#pragma once
// The run directory of `noiselearn train` (src/io/README.md, "Run directory"):
//   config.yaml            the resolved configuration (every key), so the run can be repeated
//   noise.csv, noise.json  the learned table; metadata with model, loss, utility, seed, versions, training
//                          summary and the certificate
//   certificate.csv        delta(eps) upper and lower curves of the learned table for the configured n
//   history.csv            epoch,loss,privacy,utility,utility_weight,learning_rate,seconds
//   comparison.csv         the learned table against the truncated Gaussian (same utility, same delta)
//   comparison_curves.csv  epsilon and the certified curves of the learned table and the same-utility Gaussian
//   baseline.csv/.json     the truncated Gaussian with the same utility
//   checkpoint.pt          model, loss and optimiser state (for --resume), with a checksum (checkpoint_file.hpp)
//   .lock                  held by the running train (run_directory_lock.hpp), removed at its end
//   summary.txt            the one-paragraph summary
//   table.png, certificate.png, history.png, plots.gp   plots (plots.hpp)
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace noiselearn {

// Refuses (InputError) a directory that exists and is not empty, unless `force`; creates it otherwise
// (InputError if the user can fix why it cannot be created: a parent that is a file, no permission).
void prepare_run_directory(const std::filesystem::path& directory, bool force);

// A CSV from a header and rows of numbers (full precision), written atomically.
void write_numeric_csv(const std::filesystem::path& path, const std::vector<std::string>& header,
                       const std::vector<std::vector<double>>& rows, bool overwrite);

}  // namespace noiselearn
