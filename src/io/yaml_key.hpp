#pragma once
// The text of a key of a YAML map, for the readers of configs, sweep files and events files. YAML lets a key be a map
// or a list ("{a: 1}: 2", "[a, b]: 2"); yaml-cpp's as<std::string>() refuses those with its own exception, which the
// command line would report as a failure of noiselearn (exit 1) instead of a mistake in the file (InputError, exit 2).
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <string>

#include "core/errors.hpp"

namespace noiselearn {

// The key as text (a null key reads "null", as yaml-cpp reads it); a map or a list is an InputError that starts with
// `where`.
inline std::string yaml_key_text(const YAML::Node& key, const std::string& where) {
  if (key.IsMap() || key.IsSequence())
    throw InputError(fmt::format("{}: a key must be a plain name, not a {}", where, key.IsMap() ? "map" : "list"));
  return key.as<std::string>();
}

}  // namespace noiselearn
