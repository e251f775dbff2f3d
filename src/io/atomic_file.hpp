#pragma once
// Whole-file reads and atomic whole-file writes (src/README.md, numerical rules: outputs are written atomically).
//
// A reader of a file noiselearn writes sees either the previous contents or the new contents, never a
// half-written file: the contents go to a temporary file in the same directory, are flushed to disk, and
// the temporary is renamed over the target (rename is atomic within one file system).
//
// Errors: refusing to overwrite, and paths the user can fix (permission denied, a parent that is a file,
// a target that is a directory) are InputError; failures of the machine (disk full, I/O error) are
// std::system_error.
#include <filesystem>
#include <string>
#include <string_view>

namespace noiselearn {

// Writes `contents` to `path` atomically, creating missing parent directories. If `path` exists and
// `overwrite` is false, throws InputError("refusing to overwrite existing file X (use --force)"). On any
// failure the temporary is removed and `path` is left as it was.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents, bool overwrite);

// The whole contents of a file; throws InputError naming the file if it cannot be read.
std::string read_file(const std::filesystem::path& path);

// The first half of an atomic write: the contents written and synced under a temporary name next to the
// target, not yet visible there. Staging several files before committing any of them lets a writer of a
// file pair (noise.csv + noise.json) fail before it has changed either file.
class StagedFile {
 public:
  // Checks the target (refuses an existing file unless `overwrite`, refuses a target that is not a
  // regular file), creates missing parent directories, writes and fsyncs the temporary.
  StagedFile(std::filesystem::path target, std::string_view contents, bool overwrite);
  // Removes the temporary unless it was committed.
  ~StagedFile();
  StagedFile(StagedFile&& other) noexcept;
  StagedFile& operator=(StagedFile&&) = delete;
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;

  // Renames the temporary over the target. Without `overwrite`, a target created by someone else since
  // the constructor ran is still not replaced (InputError). On failure the temporary is removed.
  void commit();

  const std::filesystem::path& target() const { return target_; }
  const std::filesystem::path& temporary() const { return temporary_; }

 private:
  std::filesystem::path target_;
  std::filesystem::path temporary_;  // empty once committed or removed
  bool overwrite_;
};

}  // namespace noiselearn
