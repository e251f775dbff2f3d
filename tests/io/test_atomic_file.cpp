#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "io/atomic_file.hpp"
#include "io/scratch_directory.hpp"

using namespace noiselearn;
using Catch::Matchers::Contains;
using noiselearn::testing::get_file;
using noiselearn::testing::input_error_of;
using noiselearn::testing::put_file;
using noiselearn::testing::ScratchDirectory;
using Entries = std::set<std::string>;

TEST_CASE("an atomic write creates missing parents and leaves exactly the target behind", "[atomic_file]") {
  const ScratchDirectory scratch;
  const auto target = scratch / "run/nested/noise.csv";
  // Embedded NUL and a non-ASCII byte: the file holds the bytes given, nothing is reinterpreted.
  const std::string contents("x,p\n0,1\n\0\xff", 10);
  write_file_atomically(target, contents, false);
  CHECK(read_file(target) == contents);
  CHECK(scratch.entries() == Entries{"run", "run/nested", "run/nested/noise.csv"});
}

TEST_CASE("an existing file is replaced only when overwriting is asked for", "[atomic_file]") {
  const ScratchDirectory scratch;
  const auto target = scratch / "noise.csv";
  write_file_atomically(target, "old", false);

  const std::string message = input_error_of([&] { write_file_atomically(target, "new", false); });
  CHECK_THAT(message,
             Contains("refusing to overwrite existing file") && Contains(target.string()) && Contains("--force"));
  CHECK(read_file(target) == "old");
  CHECK(scratch.entries() == Entries{"noise.csv"});

  write_file_atomically(target, "new", true);
  CHECK(read_file(target) == "new");
  CHECK(scratch.entries() == Entries{"noise.csv"});
}

TEST_CASE("a failed write leaves the target as it was and no temporary", "[atomic_file]") {
  const ScratchDirectory scratch;

  SECTION("the parent directory is a file") {
    const auto blocker = scratch / "blocker";
    put_file(blocker, "I am a file");
    const std::string message = input_error_of([&] { write_file_atomically(blocker / "noise.csv", "new", true); });
    CHECK_THAT(message, Contains(blocker.string()));
    CHECK(get_file(blocker) == "I am a file");
    CHECK(scratch.entries() == Entries{"blocker"});
  }

  SECTION("the target is a directory") {
    const auto target = scratch / "noise.csv";
    std::filesystem::create_directory(target);
    put_file(target / "inside", "kept");
    const std::string message = input_error_of([&] { write_file_atomically(target, "new", true); });
    CHECK_THAT(message, Contains(target.string()) && Contains("not a regular file"));
    CHECK(get_file(target / "inside") == "kept");
    CHECK(scratch.entries() == Entries{"noise.csv", "noise.csv/inside"});
  }

  SECTION("another writer creates the target between staging and commit") {
    // The existence check of the constructor is not enough; the commit itself must not replace.
    const auto target = scratch / "noise.csv";
    StagedFile staged(target, "ours", false);
    put_file(target, "theirs");
    const std::string message = input_error_of([&] { staged.commit(); });
    CHECK_THAT(message, Contains("refusing to overwrite"));
    CHECK(get_file(target) == "theirs");
    CHECK(scratch.entries() == Entries{"noise.csv"});
  }

  SECTION("the directory is not writable") {
    if (::geteuid() == 0) {
      WARN("running as root: permissions cannot make a directory unwritable; case skipped");
      return;
    }
    const auto target = scratch / "locked/noise.csv";
    std::filesystem::create_directory(scratch / "locked");
    put_file(target, "old");
    ::chmod((scratch / "locked").c_str(), 0555);
    const std::string message = input_error_of([&] { write_file_atomically(target, "new", true); });
    ::chmod((scratch / "locked").c_str(), 0755);
    CHECK_THAT(message, Contains((scratch / "locked").string()));
    CHECK(get_file(target) == "old");
    CHECK(scratch.entries() == Entries{"locked", "locked/noise.csv"});
  }
}

TEST_CASE("a staged file is invisible at its target and vanishes if never committed", "[atomic_file]") {
  const ScratchDirectory scratch;
  const auto target = scratch / "noise.json";
  std::filesystem::path temporary;
  {
    StagedFile staged(target, "{}", false);
    temporary = staged.temporary();
    CHECK(temporary.parent_path() == target.parent_path());  // same file system, so rename is atomic
    CHECK(get_file(temporary) == "{}");
    CHECK_FALSE(std::filesystem::exists(target));
  }
  CHECK_FALSE(std::filesystem::exists(temporary));
  CHECK(scratch.entries().empty());
}

TEST_CASE("reading a file that cannot be read names the file", "[atomic_file]") {
  const ScratchDirectory scratch;
  const auto missing = scratch / "missing.csv";
  CHECK_THAT(input_error_of([&] { read_file(missing); }), Contains(missing.string()));
  CHECK_THAT(input_error_of([&] { read_file(scratch.path()); }), Contains(scratch.path().string()));
  put_file(scratch / "empty.csv", "");
  CHECK(read_file(scratch / "empty.csv").empty());
}
