#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <stdexcept>
#include <system_error>

#include "core/errors.hpp"

namespace noiselearn {

namespace fs = std::filesystem;

namespace {

// Distinguishes temporaries of concurrent writes from one process; the pid distinguishes processes.
std::atomic<unsigned long long> temporary_counter{0};

// Errors the user fixes by choosing another path or changing permissions (exit code 2); anything else
// (ENOSPC, EIO, ...) is a failure of the machine (exit code 1).
bool is_user_fixable(int error) {
  switch (error) {
    case EACCES:
    case EPERM:
    case EROFS:
    case ENOTDIR:
    case EISDIR:
    case ENOENT:
    case ENAMETOOLONG:
    case ELOOP:
    case EEXIST:
      return true;
    default:
      return false;
  }
}

[[noreturn]] void throw_file_error(int error, const std::string& what) {
  if (is_user_fixable(error)) throw InputError(fmt::format("{}: {}", what, std::generic_category().message(error)));
  throw std::system_error(error, std::generic_category(), what);
}

std::string refusal_message(const fs::path& path) {
  return fmt::format("refusing to overwrite existing file {} (use --force)", path.string());
}

fs::path directory_of(const fs::path& path) {
  const fs::path parent = path.parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

// Makes a completed rename durable. Best effort: some file systems refuse fsync on a directory, and by
// now the new contents are already visible, so a failure here must not report the write as failed.
void sync_directory(const fs::path& directory) {
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// rename() that fails with EEXIST instead of replacing an existing target. The check in the StagedFile
// constructor is not enough on its own: two runs writing into the same directory could both pass it.
int rename_without_replacing(const fs::path& from, const fs::path& to) {
#if defined(__linux__) && defined(RENAME_NOREPLACE)
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) return -1;
#endif
  // A file system without RENAME_NOREPLACE: check and rename are not atomic together, but ordinary
  // reuse of an existing path is still refused.
  std::error_code ec;
  if (fs::exists(to, ec)) {
    errno = EEXIST;
    return -1;
  }
  return ::rename(from.c_str(), to.c_str());
}

// Opens a new, exclusively created temporary next to `target`: ".<name>.tmp.<pid>.<counter>".
// The leading dot keeps it out of globs such as *.csv while it exists.
int create_temporary(const fs::path& target, fs::path& temporary) {
  const fs::path directory = directory_of(target);
  const std::string name = target.filename().string();
  for (int attempt = 0; attempt < 100; ++attempt) {
    temporary =
        directory / fmt::format(".{}.tmp.{}.{}", name, static_cast<long>(::getpid()), temporary_counter.fetch_add(1));
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return fd;
    // EEXIST: a leftover of a crashed process that had the same pid; try the next name.
    if (errno != EEXIST)
      throw_file_error(errno, fmt::format("cannot create a temporary file in {}", directory.string()));
  }
  throw_file_error(EEXIST, fmt::format("cannot create a temporary file in {}", directory.string()));
}

void write_all(int fd, std::string_view contents, const fs::path& temporary) {
  const char* cursor = contents.data();
  size_t remaining = contents.size();
  while (remaining > 0) {
    const size_t chunk = std::min<size_t>(remaining, size_t{1} << 30);
    const ssize_t written = ::write(fd, cursor, chunk);
    if (written < 0) {
      if (errno == EINTR) continue;
      throw_file_error(errno, fmt::format("cannot write {}", temporary.string()));
    }
    cursor += written;
    remaining -= static_cast<size_t>(written);
  }
}

}  // namespace

StagedFile::StagedFile(fs::path target, std::string_view contents, bool overwrite)
    : target_(std::move(target)), overwrite_(overwrite) {
  if (target_.filename().empty())
    throw InputError(fmt::format("cannot write {}: the path names a directory, not a file", target_.string()));

  std::error_code ec;
  const fs::file_status status = fs::status(target_, ec);
  if (fs::exists(status)) {
    if (!overwrite_) throw InputError(refusal_message(target_));
    // Renaming a file over a directory fails only after the temporary is written; refusing here keeps
    // a multi-file write (StagedFile pairs) from committing one file and failing on the next.
    if (!fs::is_regular_file(status))
      throw InputError(fmt::format("cannot write {}: it exists and is not a regular file", target_.string()));
  }

  const fs::path directory = directory_of(target_);
  fs::create_directories(directory, ec);
  if (ec) throw_file_error(ec.value(), fmt::format("cannot create directory {}", directory.string()));

  const int fd = create_temporary(target_, temporary_);
  try {
    write_all(fd, contents, temporary_);
    // fsync before the rename: otherwise a crash can leave the new name pointing at an empty file.
    if (::fsync(fd) != 0) throw_file_error(errno, fmt::format("cannot sync {}", temporary_.string()));
  } catch (...) {
    ::close(fd);
    ::unlink(temporary_.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(temporary_.c_str());
    throw_file_error(error, fmt::format("cannot write {}", temporary_.string()));
  }
}

StagedFile::StagedFile(StagedFile&& other) noexcept
    : target_(std::move(other.target_)), temporary_(std::move(other.temporary_)), overwrite_(other.overwrite_) {
  other.temporary_.clear();
}

StagedFile::~StagedFile() {
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
}

void StagedFile::commit() {
  if (temporary_.empty()) throw std::logic_error("StagedFile::commit: nothing staged (already committed?)");
  const int result =
      overwrite_ ? ::rename(temporary_.c_str(), target_.c_str()) : rename_without_replacing(temporary_, target_);
  if (result != 0) {
    const int error = errno;
    ::unlink(temporary_.c_str());
    temporary_.clear();
    if (error == EEXIST && !overwrite_) throw InputError(refusal_message(target_));
    throw_file_error(error, fmt::format("cannot write {}", target_.string()));
  }
  temporary_.clear();
  sync_directory(directory_of(target_));
}

void write_file_atomically(const fs::path& path, std::string_view contents, bool overwrite) {
  StagedFile staged(path, contents, overwrite);
  staged.commit();
}

std::string read_file(const fs::path& path) {
  const auto fail = [&](int error) -> InputError {
    return InputError(fmt::format("cannot read {}: {}", path.string(), std::generic_category().message(error)));
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw fail(errno);
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int error = errno;
    ::close(fd);
    throw fail(error);
  }
  if (S_ISDIR(info.st_mode)) {
    ::close(fd);
    throw fail(EISDIR);
  }
  std::string contents;
  if (S_ISREG(info.st_mode)) contents.reserve(static_cast<size_t>(info.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd);
      throw fail(error);
    }
    contents.append(buffer, static_cast<size_t>(got));
  }
  ::close(fd);
  return contents;
}

}  // namespace noiselearn
