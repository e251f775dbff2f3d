#include "io/events_file.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

#include "core/errors.hpp"
#include "core/nearest_word.hpp"
#include "io/table_files.hpp"
#include "io/yaml_key.hpp"

namespace noiselearn {

ReleaseDescription parse_events_yaml(const std::string& text, const std::string& source,
                                     const std::filesystem::path& folder) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("{}: not valid YAML: {}", source, e.what()));
  }
  if (!root.IsMap())
    throw InputError(fmt::format("{}: expected a map with 'events' (and optionally 'relation')", source));
  ReleaseDescription description;
  for (const auto& entry : root) {
    const std::string key = yaml_key_text(entry.first, source);
    if (key == "relation") {
      if (!entry.second.IsScalar())
        throw InputError(fmt::format("{}: relation must be add_remove or replace_one", source));
      try {
        description.relation = parse_record_relation(entry.second.as<std::string>());
      } catch (const InputError& e) {
        throw InputError(fmt::format("{}: {}", source, e.what()));
      }
    } else if (key != "events") {
      throw InputError(fmt::format("{}: unknown key '{}'{} (an events file has: relation, events)", source, key,
                                   did_you_mean(key, {"relation", "events"})));
    }
  }
  const YAML::Node events = root["events"];
  if (!events || !events.IsSequence() || events.size() == 0)
    throw InputError(
        fmt::format("{}: 'events' must be a list of events (each a map with mechanism, its parameters, "
                    "sampling and count)",
                    source));
  for (size_t i = 0; i < events.size(); ++i) {
    const std::string where = fmt::format("{}, event {}", source, i + 1);
    if (!events[i].IsMap()) throw InputError(fmt::format("{}: must be a map of keys to values", where));
    EventFields fields;
    for (const auto& entry : events[i]) {
      const std::string key = yaml_key_text(entry.first, where);
      if (!entry.second.IsScalar())
        throw InputError(fmt::format("{}: {} must be a single value (a number or a word)", where, key));
      fields.emplace_back(key, entry.second.as<std::string>());
    }
    description.events.push_back(parse_release_event(fields, where, table_file_reader(folder)));
  }
  try {
    description.validate();
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", source, e.what()));
  }
  return description;
}

ReleaseDescription read_events_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot read the events file", path.string()));
  std::stringstream text;
  text << in.rdbuf();
  return parse_events_yaml(text.str(), path.string(), path.parent_path());
}

EventFields parse_event_assignments(const std::string& text, const std::string& where) {
  EventFields fields;
  std::stringstream parts(text);
  std::string part;
  while (std::getline(parts, part, ',')) {
    const auto equals = part.find('=');
    if (equals == std::string::npos || equals == 0)
      throw InputError(fmt::format("{}: '{}' is not KEY=VALUE (e.g. mechanism=gaussian,noise_multiplier=1.1,count=100)",
                                   where, part));
    fields.emplace_back(part.substr(0, equals), part.substr(equals + 1));
  }
  if (fields.empty()) throw InputError(fmt::format("{}: empty (give KEY=VALUE pairs separated by commas)", where));
  return fields;
}

}  // namespace noiselearn
