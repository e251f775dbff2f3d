#pragma once
// Shared by the io tests: a fresh directory per test case, removed afterwards, and a way to capture the
// message of an expected InputError so that a test can check file, line and wording together.
#include <unistd.h>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "core/errors.hpp"

namespace noiselearn::testing {

class ScratchDirectory {
 public:
  ScratchDirectory() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            fmt::format("noiselearn-test-io-{}-{}", static_cast<long>(::getpid()), counter.fetch_add(1));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

  // Names of all entries below the directory, relative to it: catches a stray temporary anywhere.
  std::set<std::string> entries() const {
    std::set<std::string> names;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(path_))
      names.insert(std::filesystem::relative(entry.path(), path_).string());
    return names;
  }

 private:
  std::filesystem::path path_;
};

// Writes a file directly (not atomically): the fixture for a reader, or a competing writer.
inline void put_file(const std::filesystem::path& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
  REQUIRE(out.good());
}

inline std::string get_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The message of the InputError that `action` throws; fails the test if it throws nothing or another type.
template <typename Action>
std::string input_error_of(Action&& action) {
  try {
    action();
  } catch (const InputError& e) {
    return e.what();
  } catch (const std::exception& e) {
    FAIL("expected an InputError, got another exception: " << e.what());
  }
  FAIL("expected an InputError, nothing was thrown");
  return {};
}

}  // namespace noiselearn::testing
