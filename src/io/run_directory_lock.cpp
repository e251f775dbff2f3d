#include "io/run_directory_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <string>
#include <system_error>

#include "core/errors.hpp"

namespace noiselearn {

namespace {

// The pid the holder wrote, or "" if it has not written it yet.
std::string holder_of(int descriptor) {
  char buffer[32] = {};
  const ssize_t got = ::pread(descriptor, buffer, sizeof buffer - 1, 0);
  std::string text = got > 0 ? std::string(buffer, static_cast<size_t>(got)) : std::string();
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

bool same_file(int descriptor, const std::filesystem::path& path) {
  struct stat opened {
  }, named{};
  if (::fstat(descriptor, &opened) != 0 || ::stat(path.c_str(), &named) != 0) return false;
  return opened.st_dev == named.st_dev && opened.st_ino == named.st_ino;
}

}  // namespace

RunDirectoryLock::RunDirectoryLock(const std::filesystem::path& directory) : path_(directory / kFileName) {
  for (;;) {
    const int descriptor = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (descriptor < 0) {
      const int error = errno;
      const std::string what = fmt::format("cannot create the run directory's lock {}", path_.string());
      if (error == EACCES || error == EPERM || error == EROFS || error == ENOENT || error == ENOTDIR)
        throw InputError(fmt::format("{}: {}", what, std::generic_category().message(error)));
      throw std::system_error(error, std::generic_category(), what);
    }
    if (::flock(descriptor, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      const std::string holder = error == EWOULDBLOCK ? holder_of(descriptor) : "";
      ::close(descriptor);
      if (error == EWOULDBLOCK)
        throw InputError(
            fmt::format("run directory {} is in use: {} is held by process {} (another noiselearn train); wait "
                        "for it to finish or choose another --out",
                        directory.string(), path_.string(), holder.empty() ? "(pid not yet written)" : holder));
      throw std::system_error(error, std::generic_category(), fmt::format("cannot lock {}", path_.string()));
    }
    // The previous holder removes the file when it releases the lock: if it did so after we opened it, we
    // hold a lock on a file nobody else will see. Try again on the file the name refers to now.
    if (!same_file(descriptor, path_)) {
      ::close(descriptor);
      continue;
    }
    descriptor_ = descriptor;
    break;
  }
  const std::string pid = fmt::format("{}\n", static_cast<long>(::getpid()));
  // Best effort: the pid only improves the refusal message of another run.
  const bool written = ::ftruncate(descriptor_, 0) == 0 &&
                       ::pwrite(descriptor_, pid.data(), pid.size(), 0) == static_cast<ssize_t>(pid.size());
  (void)written;
}

RunDirectoryLock::~RunDirectoryLock() {
  if (descriptor_ < 0) return;
  ::unlink(path_.c_str());  // while still holding the lock: see the retry in the constructor
  ::close(descriptor_);
}

}  // namespace noiselearn
