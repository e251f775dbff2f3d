// checkpoint.pt: a header with the archive's checksum, so that a checkpoint changed after it was written is
// refused (as noise.json refuses a changed CSV), and writes that fail leave nothing behind.
#include <signal.h>
#include <sys/resource.h>

#include <catch2/catch.hpp>

#include <system_error>

#include "io/checkpoint_file.hpp"
#include "io/checksum.hpp"
#include "io/scratch_directory.hpp"

using namespace noiselearn;
using Catch::Matchers::Contains;
using noiselearn::testing::get_file;
using noiselearn::testing::input_error_of;
using noiselearn::testing::put_file;
using noiselearn::testing::ScratchDirectory;

namespace {

// Stands in for a LibTorch archive: arbitrary bytes, NUL and newlines included.
const std::string kArchive("PK\x03\x04\0archive\nbytes\n\xff", 21);

}  // namespace

TEST_CASE("FNV-1a 64 of known inputs", "[checksum]") {
  // The offset basis for the empty input, and the published test vector for "a".
  CHECK(fnv1a64_checksum("") == "fnv1a64:cbf29ce484222325");
  CHECK(fnv1a64_checksum("a") == "fnv1a64:af63dc4c8601ec8c");
}

TEST_CASE("a checkpoint reads back as the archive it was written from", "[checkpoint_file]") {
  const ScratchDirectory scratch;
  const auto path = scratch / "checkpoint.pt";
  write_checkpoint_file(path, kArchive);
  CHECK(read_checkpoint_file(path) == kArchive);
  CHECK_THAT(get_file(path), Catch::StartsWith("noiselearn-checkpoint 1 " + fnv1a64_checksum(kArchive) + "\n"));
  CHECK(scratch.entries() == std::set<std::string>{"checkpoint.pt"});
  write_checkpoint_file(path, "shorter");  // replaced atomically
  CHECK(read_checkpoint_file(path) == "shorter");
}

TEST_CASE("a checkpoint changed after it was written is refused, naming the file", "[checkpoint_file]") {
  const ScratchDirectory scratch;
  const auto path = scratch / "checkpoint.pt";
  write_checkpoint_file(path, kArchive);
  std::string edited = get_file(path);
  SECTION("one byte of the archive changed by hand") {
    edited[edited.size() - 3] ^= 0x01;
    put_file(path, edited);
    CHECK_THAT(input_error_of([&] { read_checkpoint_file(path); }),
               Contains(path.string()) && Contains("checksum mismatch") && Contains("changed after it was written"));
  }
  SECTION("cut short, as by an interrupted copy") {
    put_file(path, edited.substr(0, edited.size() - 5));
    CHECK_THAT(input_error_of([&] { read_checkpoint_file(path); }), Contains("checksum mismatch"));
  }
  SECTION("a bare LibTorch archive, without the header") {
    put_file(path, kArchive);
    CHECK_THAT(input_error_of([&] { read_checkpoint_file(path); }), Contains("is not a noiselearn checkpoint"));
  }
  SECTION("another format version") {
    put_file(path, "noiselearn-checkpoint 2 " + fnv1a64_checksum(kArchive) + "\n" + kArchive);
    CHECK_THAT(input_error_of([&] { read_checkpoint_file(path); }), Contains("is not version 1"));
  }
  SECTION("missing") {
    CHECK_THAT(input_error_of([&] { read_checkpoint_file(scratch / "none.pt"); }), Contains("none.pt"));
  }
}

TEST_CASE("a checkpoint that cannot be written leaves the old one and no temporary", "[checkpoint_file]") {
  const ScratchDirectory scratch;
  const auto path = scratch / "run" / "checkpoint.pt";
  write_checkpoint_file(path, kArchive);
  // A file size limit (ulimit -f) of 4 KiB, as in the reproducer: the 64 KiB write fails with EFBIG
  // (SIGXFSZ ignored, as the signal would otherwise end the process), a failure of the machine, not bad input.
  struct rlimit saved {};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
  struct rlimit limited = saved;
  limited.rlim_cur = 4096;
  const auto previous_handler = ::signal(SIGXFSZ, SIG_IGN);
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &limited) == 0);
  bool threw_system_error = false;
  try {
    write_checkpoint_file(path, std::string(65536, 'x'));
  } catch (const std::system_error& e) {
    threw_system_error = e.code() == std::errc::file_too_large;
  } catch (...) {}
  ::setrlimit(RLIMIT_FSIZE, &saved);
  ::signal(SIGXFSZ, previous_handler);
  CHECK(threw_system_error);
  CHECK(read_checkpoint_file(path) == kArchive);
  CHECK(scratch.entries() == std::set<std::string>{"run", "run/checkpoint.pt"});
}
