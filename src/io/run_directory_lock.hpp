#pragma once
// The lock of a run directory: `noiselearn train` holds an exclusive flock(2) on DIR/.lock for the whole run,
// so that a second run into the same directory (even with --force, or --resume) is refused instead of mixing
// its files with the first one's. The file holds the holder's pid, for the refusal message.
//
// flock rather than a pid file: the kernel releases the lock when its holder dies, however it dies (kill -9
// included), so a stale .lock left behind never blocks a later run. The file is removed when the lock is
// released; a run that opened it just before must then retry on a fresh file (checked by inode).
#include <filesystem>

namespace noiselearn {

class RunDirectoryLock {
 public:
  // Takes the lock of `directory` (which must exist) without waiting. InputError naming the lock file and
  // the holder's pid if another process holds it; InputError or std::system_error if it cannot be created.
  explicit RunDirectoryLock(const std::filesystem::path& directory);
  ~RunDirectoryLock();  // removes the file and releases the lock
  RunDirectoryLock(const RunDirectoryLock&) = delete;
  RunDirectoryLock& operator=(const RunDirectoryLock&) = delete;

  const std::filesystem::path& path() const { return path_; }

  static constexpr const char* kFileName = ".lock";

 private:
  std::filesystem::path path_;
  int descriptor_ = -1;
};

}  // namespace noiselearn
