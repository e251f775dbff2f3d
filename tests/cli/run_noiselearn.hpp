#pragma once
// Runs the real noiselearn executable (NOISELEARN_BINARY) in a scratch directory and captures its exit code,
// stdout and stderr, for the command-line tests.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

namespace noiselearn::testing {

struct Run {
  int exit_code = -1;
  std::string out, err;
};

// A fresh directory under the system's temporary directory, unique to this process and `name`.
inline std::filesystem::path scratch(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("noiselearn-cli-" + std::to_string(::getpid())) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// `arguments` is a shell fragment; the command runs with --threads 1 in `directory`, after `shell_prefix`
// (e.g. "ulimit -f 16; ") in the same shell.
inline Run run_noiselearn(const std::string& arguments, const std::filesystem::path& directory,
                          const std::string& shell_prefix = "") {
  const std::filesystem::path err_file = directory / "stderr.txt";
  const std::string command = "cd '" + directory.string() + "' && " + shell_prefix + "'" + NOISELEARN_BINARY +
                              "' --threads 1 " + arguments + " 2>'" + err_file.string() + "'";
  Run run;
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 4096> buffer{};
  size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) run.out.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream err(err_file);
  run.err.assign(std::istreambuf_iterator<char>(err), std::istreambuf_iterator<char>());
  return run;
}

// The files and shells the command-line tests share.
inline void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream file(path);
  return nlohmann::json::parse(file);
}

// The exit code of `command` run by /bin/sh, or -1 if it did not exit.
inline int shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The error line of stderr (not the log lines before it), or "".
inline std::string error_line(const Run& run) {
  const auto at = run.err.find("noiselearn: error: ");
  return at == std::string::npos ? std::string() : run.err.substr(at);
}

}  // namespace noiselearn::testing
