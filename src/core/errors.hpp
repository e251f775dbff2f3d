#pragma once
// Error types shared by every layer.
//
// InputError is anything the user can fix: a malformed file, an unknown option, a grid that does not fit
// the sensitivity. The CLI turns it into a one-line message and exit code 2. Everything else that escapes
// is a runtime failure (exit code 1).
#include <stdexcept>
#include <string>

namespace noiselearn {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace noiselearn
