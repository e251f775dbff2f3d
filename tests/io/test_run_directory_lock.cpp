// The run directory lock: one train per run directory at a time; a lock left by a killed run never blocks.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <string>

#include "io/run_directory.hpp"
#include "io/run_directory_lock.hpp"
#include "io/scratch_directory.hpp"

using namespace noiselearn;
using Catch::Matchers::Contains;
using noiselearn::testing::input_error_of;
using noiselearn::testing::put_file;
using noiselearn::testing::ScratchDirectory;

TEST_CASE("a second lock of a run directory is refused, naming the lock file and the holder's pid", "[run_directory]") {
  const ScratchDirectory scratch;
  {
    const RunDirectoryLock first(scratch.path());
    CHECK(std::filesystem::exists(scratch / ".lock"));
    // flock locks belong to open file descriptions: a second open in the same process conflicts too.
    CHECK_THAT(input_error_of([&] { RunDirectoryLock second(scratch.path()); }),
               Contains(scratch.path().string()) && Contains(".lock") &&
                   Contains("is held by process " + std::to_string(::getpid())));
  }
  // Released (and removed): the directory holds nothing of the lock, and the next run takes it.
  CHECK(scratch.entries().empty());
  const RunDirectoryLock again(scratch.path());
  CHECK(std::filesystem::exists(scratch / ".lock"));
}

TEST_CASE("the lock of a run killed with SIGKILL does not block the next run", "[run_directory]") {
  const ScratchDirectory scratch;
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {  // the "run": takes the lock, says so, and waits to be killed
    ::close(ready[0]);
    try {
      RunDirectoryLock lock(scratch.path());
      const char byte = 'x';
      if (::write(ready[1], &byte, 1) != 1) ::_exit(3);
      for (;;) ::pause();
    } catch (...) {
      ::_exit(2);
    }
  }
  ::close(ready[1]);
  char byte = 0;
  REQUIRE(::read(ready[0], &byte, 1) == 1);
  ::close(ready[0]);
  CHECK_THAT(input_error_of([&] { RunDirectoryLock blocked(scratch.path()); }),
             Contains("is held by process " + std::to_string(child)));
  REQUIRE(::kill(child, SIGKILL) == 0);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status));
  // The killed run could not remove its .lock: the file stays, with the dead pid in it, but the kernel has
  // released the flock, so the next run takes it at once.
  CHECK(std::filesystem::exists(scratch / ".lock"));
  const RunDirectoryLock next(scratch.path());
  CHECK(noiselearn::testing::get_file(scratch / ".lock") == std::to_string(::getpid()) + "\n");
}

TEST_CASE("a run directory whose parent is a file is bad input", "[run_directory]") {
  const ScratchDirectory scratch;
  put_file(scratch / "afile", "x");
  CHECK_THAT(input_error_of([&] { prepare_run_directory(scratch / "afile" / "run", false); }),
             Contains("cannot create run directory") && Contains("afile"));
  CHECK_THAT(input_error_of([&] { prepare_run_directory(scratch / "afile", true); }), Contains("is not a directory"));
}
