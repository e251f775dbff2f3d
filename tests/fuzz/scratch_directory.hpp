#pragma once
// A private directory for the harnesses whose readers take a path: the input is written there as the file the reader
// expects, so each run reads only what the fuzzer made (and the fixed files the harness put next to it).
#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace noiselearn::fuzz {

class ScratchDirectory {
 public:
  // `files`: name and contents of the fixed files the reader finds beside the input.
  explicit ScratchDirectory(std::initializer_list<std::pair<const char*, std::string_view>> files = {}) {
    const char* tmpdir = std::getenv("TMPDIR");
    std::string pattern = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/noiselearn-fuzz-XXXXXX";
    if (!::mkdtemp(pattern.data())) {
      std::perror("noiselearn fuzz: mkdtemp");
      std::abort();
    }
    path_ = pattern;
    for (const auto& [name, contents] : files) write(name, contents);
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // Replaces `name` with `contents`; a harness that cannot write its input has nothing to test, so it stops.
  std::filesystem::path write(const std::string& name, std::string_view contents) const {
    const std::filesystem::path file = path_ / name;
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.close();
    if (!out) {
      std::fprintf(stderr, "noiselearn fuzz: cannot write %s\n", file.c_str());
      std::abort();
    }
    return file;
  }

 private:
  std::filesystem::path path_;
};

// A symmetric table on five points that sums to 1 exactly in binary, for the readers that need one beside the input.
inline constexpr std::string_view kFiveCellTable = "x,p\n-2,0.0625\n-1,0.25\n0,0.375\n1,0.25\n2,0.0625\n";

// Whether the fuzzer's text names a device or kernel file (/dev/zero, /proc/self/fd/0): a reader given such a path by
// a user reads it as told, forever or until memory runs out, which is not a defect of the reader.
inline bool names_special_file(std::string_view text) {
  for (const std::string_view folder : {"/dev/", "/proc/", "/sys/"})
    if (text.find(folder) != std::string_view::npos) return true;
  return false;
}

}  // namespace noiselearn::fuzz
