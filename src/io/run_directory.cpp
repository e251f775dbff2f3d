#include "io/run_directory.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/errors.hpp"
#include "io/atomic_file.hpp"

namespace noiselearn {

namespace fs = std::filesystem;

void prepare_run_directory(const fs::path& directory, bool force) {
  if (fs::exists(directory)) {
    if (!fs::is_directory(directory)) throw InputError(fmt::format("{} exists and is not a directory", directory.string()));
    if (!fs::is_empty(directory) && !force)
      throw InputError(fmt::format("run directory {} is not empty (use --force to overwrite, or --resume to continue)",
                                   directory.string()));
  }
  fs::create_directories(directory);
}

void write_numeric_csv(const fs::path& path, const std::vector<std::string>& header,
                       const std::vector<std::vector<double>>& rows, bool overwrite) {
  std::string text = fmt::format("{}\n", fmt::join(header, ","));
  for (const auto& row : rows) {
    std::vector<std::string> cells;
    for (double v : row) cells.push_back(std::isfinite(v) ? fmt::format("{:.17g}", v) : (std::isnan(v) ? "" : (v > 0 ? "inf" : "-inf")));
    text += fmt::format("{}\n", fmt::join(cells, ","));
  }
  write_file_atomically(path, text, overwrite);
}

}  // namespace noiselearn
