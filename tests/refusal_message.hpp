#pragma once
// What a reader says when it refuses a text: the InputError's message, or "(accepted)" (tests of the refusals' wording,
// shared by the suites of core and accounting).
#include <string>

#include "core/errors.hpp"

namespace noiselearn::testing {

inline std::string message_of(void (*parse)(const std::string&), const std::string& text) {
  try {
    parse(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace noiselearn::testing
