#pragma once
// Text for a POSIX shell (sh, bash, GNU parallel's and Slurm's command lines): a word in single quotes, with
// every ' closed, escaped and reopened, so that no character of a path or value is interpreted.
#include <string>

namespace noiselearn {

inline std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace noiselearn
