#include "io/checkpoint_file.hpp"

#include <fmt/format.h>

#include <system_error>

#include "core/errors.hpp"
#include "io/atomic_file.hpp"
#include "io/checksum.hpp"

namespace noiselearn {

void write_checkpoint_file(const std::filesystem::path& path, std::string_view archive) {
  std::string contents =
      fmt::format("{} {} {}\n", kCheckpointFormat, kCheckpointFormatVersion, fnv1a64_checksum(archive));
  contents.append(archive);
  try {
    write_file_atomically(path, contents, /*overwrite=*/true);
  } catch (const std::system_error& e) {
    // Name the checkpoint, not the temporary (which is gone by now).
    throw std::system_error(e.code(), fmt::format("cannot write {}", path.string()));
  }
}

std::string read_checkpoint_file(const std::filesystem::path& path) {
  std::string contents = read_file(path);
  const size_t end_of_header = contents.find('\n');
  const std::string expected_start = fmt::format("{} ", kCheckpointFormat);
  if (end_of_header == std::string::npos || contents.compare(0, expected_start.size(), expected_start) != 0)
    throw InputError(fmt::format("{} is not a noiselearn checkpoint (its first line is not '{} {} <checksum>')",
                                 path.string(), kCheckpointFormat, kCheckpointFormatVersion));
  const std::string header = contents.substr(0, end_of_header);
  const std::string expected_version = fmt::format("{}{} ", expected_start, kCheckpointFormatVersion);
  if (header.compare(0, expected_version.size(), expected_version) != 0)
    throw InputError(fmt::format("{}: checkpoint format '{}' is not version {}, the one this noiselearn reads",
                                 path.string(), header, kCheckpointFormatVersion));
  const std::string stored = header.substr(expected_version.size());
  std::string archive = contents.substr(end_of_header + 1);
  const std::string computed = fnv1a64_checksum(archive);
  if (stored != computed)
    throw InputError(
        fmt::format("{}: checksum mismatch (stored {}, contents {}): the checkpoint changed after it was "
                    "written; train afresh with --force",
                    path.string(), stored, computed));
  return archive;
}

}  // namespace noiselearn
