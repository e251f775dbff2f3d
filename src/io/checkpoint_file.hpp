#pragma once
// checkpoint.pt of a run directory: one header line, then the trainer's LibTorch archive (Trainer::checkpoint):
//
//   noiselearn-checkpoint 1 fnv1a64:<16 hex digits>\n<archive bytes>
//
// The checksum covers the archive bytes, so that a checkpoint changed after it was written (by hand, or by a
// copy cut short) is refused rather than resumed from, as noise.json does for its CSV.
#include <filesystem>
#include <string>
#include <string_view>

namespace noiselearn {

inline constexpr const char* kCheckpointFormat = "noiselearn-checkpoint";
inline constexpr int kCheckpointFormatVersion = 1;

// Writes the header and the archive atomically (io/atomic_file.hpp), replacing an existing checkpoint. A
// failed write (disk full, file size limit) throws and leaves the previous checkpoint and no temporary file.
void write_checkpoint_file(const std::filesystem::path& path, std::string_view archive);

// The archive of a checkpoint file. InputError naming the file if it cannot be read, is not a noiselearn
// checkpoint (of this format version), or its checksum does not match its contents.
std::string read_checkpoint_file(const std::filesystem::path& path);

}  // namespace noiselearn
