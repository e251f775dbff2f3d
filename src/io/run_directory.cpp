#include "io/run_directory.hpp"

#include <fmt/format.h>

#include <cmath>
#include <system_error>

#include "core/errors.hpp"
#include "io/atomic_file.hpp"

namespace noiselearn {

namespace fs = std::filesystem;

void prepare_run_directory(const fs::path& directory, bool force) {
  std::error_code ec;
  if (fs::exists(directory, ec)) {
    if (!fs::is_directory(directory))
      throw InputError(fmt::format("{} exists and is not a directory", directory.string()));
    if (!fs::is_empty(directory) && !force)
      throw InputError(fmt::format("run directory {} is not empty (use --force to overwrite, or --resume to continue)",
                                   directory.string()));
  }
  fs::create_directories(directory, ec);
  if (!ec) return;
  // A parent that is a file, a directory without write permission, a read-only file system: the user fixes
  // these by choosing another --out. Anything else is a failure of the machine.
  const std::string what = fmt::format("cannot create run directory {}: {}", directory.string(), ec.message());
  switch (static_cast<std::errc>(ec.value())) {
    case std::errc::not_a_directory:
    case std::errc::file_exists:
    case std::errc::permission_denied:
    case std::errc::operation_not_permitted:
    case std::errc::read_only_file_system:
    case std::errc::filename_too_long:
    case std::errc::too_many_symbolic_link_levels:
      throw InputError(what);
    default:
      throw std::system_error(ec, what);
  }
}

void write_numeric_csv(const fs::path& path, const std::vector<std::string>& header,
                       const std::vector<std::vector<double>>& rows, bool overwrite) {
  std::string text = fmt::format("{}\n", fmt::join(header, ","));
  for (const auto& row : rows) {
    std::vector<std::string> cells;
    for (double v : row)
      cells.push_back(std::isfinite(v) ? fmt::format("{:.17g}", v) : (std::isnan(v) ? "" : (v > 0 ? "inf" : "-inf")));
    text += fmt::format("{}\n", fmt::join(cells, ","));
  }
  write_file_atomically(path, text, overwrite);
}

}  // namespace noiselearn
