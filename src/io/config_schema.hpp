#pragma once
// The machinery behind every YAML configuration of noiselearn (training, the solvers): a config is a struct with a
// schema, one ConfigKey per "section.key" bound to a member. The schema drives parsing (unknown, mistyped, repeated
// or out-of-range keys are an InputError naming the key, the file and line, and what is valid), `--set key=value`,
// the resolved config.yaml and the README's key tables, so the documentation cannot drift from the parser.
//
// A Config type provides: static const std::vector<ConfigKey<Config>>& schema(); void validate() const.
//
// A key is bound to a member of the Config or to a member of a part of it: a kind's typed config (AdamConfig, ...)
// declares its keys once, as ConfigKey<AdamConfig> bound to its own members, and the Config takes them in with
// part_keys(&Config::adam, AdamConfig::keys()).
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/errors.hpp"
#include "core/nearest_word.hpp"
#include "io/yaml_key.hpp"

namespace noiselearn {

struct WholeRange {
  int64_t minimum, maximum;
};

template <class Config>
struct ConfigKey {
  // Where the key's value lives in a Config.
  using Target = std::variant<double*, int64_t*, bool*, std::string*, std::vector<double>*>;
  std::string name;  // "section.key"
  std::function<Target(Config&)> target;
  std::string unit;         // "x units", "nats", "epochs", "path" (made absolute, see parse_config) ...
  std::string description;  // one line, including the valid values
  // The allowed values of a whole-number key; none: 0 to 2^63 - 1.
  std::optional<WholeRange> range;

  ConfigKey() = default;
  // A key bound to a member of the Config.
  template <class T>
  ConfigKey(std::string name_, T Config::*member, std::string unit_, std::string description_,
            std::optional<WholeRange> range_ = std::nullopt)
      : name(std::move(name_)),
        target([member](Config& config) -> Target { return &(config.*member); }),
        unit(std::move(unit_)),
        description(std::move(description_)),
        range(range_) {}

  Target operator()(Config& config) const { return target(config); }
  Target operator()(const Config& config) const { return target(const_cast<Config&>(config)); }  // read only
  // Whether the key holds a T (double, int64_t, ...).
  template <class T>
  bool holds() const {
    Config probe;
    return std::holds_alternative<T*>(target(probe));
  }
};

// The keys of a part of the Config (a kind's typed config), bound through the member that holds the part.
template <class Config, class Part>
std::vector<ConfigKey<Config>> part_keys(Part Config::*part, const std::vector<ConfigKey<Part>>& keys) {
  std::vector<ConfigKey<Config>> out;
  for (const auto& key : keys) {
    ConfigKey<Config> lifted;
    lifted.name = key.name;
    lifted.target = [part, inner = key.target](Config& config) { return inner(config.*part); };
    lifted.unit = key.unit;
    lifted.description = key.description;
    lifted.range = key.range;
    out.push_back(std::move(lifted));
  }
  return out;
}

namespace config_schema {

// A schema made of groups of keys in order: the Config's own keys and its parts' (part_keys).
template <class Config>
std::vector<ConfigKey<Config>> joined(std::initializer_list<std::vector<ConfigKey<Config>>> groups) {
  std::vector<ConfigKey<Config>> out;
  for (const auto& group : groups) out.insert(out.end(), group.begin(), group.end());
  return out;
}

// InputError "<key> <message>" unless condition holds.
void require(bool condition, const std::string& key, const std::string& message);
// InputError naming the key, the value and the valid values unless value is one of them.
void require_one_of(const std::string& value, const std::string& key, std::initializer_list<const char*> valid);
void require_one_of(const std::string& value, const std::string& key, const std::vector<std::string>& valid);

// A value a key may take when it must be a positive, finite number (a scale, a step, a budget).
inline bool positive(double v) { return v > 0.0 && std::isfinite(v); }

inline std::string section_of(const std::string& name) { return name.substr(0, name.find('.')); }

template <class Config>
std::string valid_keys(const std::string& section) {
  std::vector<std::string> names;
  for (const auto& key : Config::schema())
    if (section.empty() || section_of(key.name) == section) names.push_back(key.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

template <class Config>
std::string valid_sections() {
  std::vector<std::string> sections;
  for (const auto& key : Config::schema())
    if (std::find(sections.begin(), sections.end(), section_of(key.name)) == sections.end())
      sections.push_back(section_of(key.name));
  return fmt::format("{}", fmt::join(sections, ", "));
}

template <class Config>
std::vector<std::string> key_names() {
  std::vector<std::string> names;
  for (const auto& key : Config::schema()) names.push_back(key.name);
  return names;
}

template <class Config>
std::vector<std::string> section_names() {
  std::vector<std::string> sections;
  for (const auto& key : Config::schema())
    if (std::find(sections.begin(), sections.end(), section_of(key.name)) == sections.end())
      sections.push_back(section_of(key.name));
  return sections;
}

// "; did you mean 'loss.epsilon'?" for a mistyped "section.key" (any section: a key put in the wrong section is a
// common slip), or "".
template <class Config>
std::string did_you_mean_key(const std::string& name) {
  const auto dot = name.find('.');
  if (dot != std::string::npos) {
    const std::string key = name.substr(dot + 1);
    for (const auto& candidate : key_names<Config>())
      if (candidate.substr(candidate.find('.') + 1) == key) return fmt::format("; did you mean '{}'?", candidate);
  }
  return did_you_mean(name, key_names<Config>());
}

template <class Config>
const ConfigKey<Config>* find_key(const std::string& name) {
  for (const auto& key : Config::schema())
    if (key.name == name) return &key;
  return nullptr;
}

// 1000000000 -> "1,000,000,000"; the largest int64 reads better as 2^63 - 1.
std::string grouped(int64_t value);

template <class Config>
WholeRange whole_range_of(const ConfigKey<Config>& key) {
  return key.range.value_or(WholeRange{0, std::numeric_limits<int64_t>::max()});
}

template <class Config>
std::string whole_range_text(const ConfigKey<Config>& key) {
  const WholeRange range = whole_range_of(key);
  return fmt::format("a whole number from {} to {}", grouped(range.minimum), grouped(range.maximum));
}

// A whole number written as an integer ("128") or as a number that is exactly one ("1e6", "128.0").
std::optional<int64_t> whole_number(const YAML::Node& node);

template <class Config>
void assign(Config& config, const ConfigKey<Config>& key, const YAML::Node& node, const std::string& where) {
  auto fail = [&](const std::string& expected) {
    std::string text = node.IsScalar() ? node.Scalar() : (node.IsSequence() ? "a list" : "a map");
    throw InputError(fmt::format("{}: {} must be {} (got '{}')", where, key.name, expected, text));
  };
  std::visit(
      [&](auto* member) {
        using T = std::decay_t<decltype(*member)>;
        try {
          if constexpr (std::is_same_v<T, std::vector<double>>) {
            if (node.IsScalar()) {
              *member = {node.as<double>()};
            } else if (node.IsSequence()) {
              std::vector<double> values;
              for (const auto& item : node) values.push_back(item.as<double>());
              *member = values;
            } else {
              fail("a number or a list of numbers");
            }
          } else {
            if (!node.IsScalar()) fail("a single value");
            if constexpr (std::is_same_v<T, bool>) {
              *member = node.as<bool>();
            } else if constexpr (std::is_same_v<T, int64_t>) {
              const std::optional<int64_t> value = whole_number(node);
              const WholeRange range = whole_range_of(key);
              if (!value || *value < range.minimum || *value > range.maximum) fail(whole_range_text(key));
              *member = *value;
            } else {
              *member = node.as<T>();
            }
          }
        } catch (const YAML::Exception&) {
          if constexpr (std::is_same_v<T, bool>)
            fail("true or false");
          else if constexpr (std::is_same_v<T, std::string>)
            fail("a string");
          else if constexpr (std::is_same_v<T, int64_t>)
            fail(whole_range_text(key));
          else
            fail("a number");
        }
      },
      key(config));
}

// A relative path in a config is relative to the directory of the file that names it, so that a config runs
// the same from any working directory; it is stored absolute, so that the resolved config.yaml does too.
template <class Config>
void resolve_path(Config& config, const ConfigKey<Config>& key, const std::filesystem::path& base_directory) {
  if (key.unit != "path") return;
  std::string& value = *std::get<std::string*>(key(config));
  if (value.empty()) return;
  const std::filesystem::path path(value);
  if (path.is_relative()) value = std::filesystem::absolute(base_directory / path).lexically_normal().string();
}

template <class Config>
void apply_override(Config& config, const std::string& assignment) {
  const auto equals = assignment.find('=');
  if (equals == std::string::npos)
    throw InputError(fmt::format("--set '{}' must look like section.key=value", assignment));
  const std::string name = assignment.substr(0, equals), value = assignment.substr(equals + 1);
  const ConfigKey<Config>* key = find_key<Config>(name);
  if (!key) {
    const std::string section = section_of(name);
    throw InputError(valid_keys<Config>(section).empty()
                         ? fmt::format("--set: unknown key '{}'{} (valid sections: {})", name,
                                       did_you_mean_key<Config>(name), valid_sections<Config>())
                         : fmt::format("--set: unknown key '{}'{} (valid: {})", name, did_you_mean_key<Config>(name),
                                       valid_keys<Config>(section)));
  }
  YAML::Node node;
  try {
    node = YAML::Load(value);
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("--set {}: '{}' is not a valid value", name, value));
  }
  if (node.IsNull()) node = YAML::Node(value);
  assign(config, *key, node, "--set");
  resolve_path(config, *key, std::filesystem::current_path());  // a path on the command line is the shell's
}

// Reads a YAML text, applies `overrides` ("section.key=value", YAML scalars or [lists]) and validates.
// Paths (keys whose unit is "path") are made absolute: a relative path in the text is relative to
// `base_directory` (empty: the working directory), one in `overrides` to the working directory.
template <class Config>
Config parse_config(const std::string& yaml_text, const std::string& source, const std::vector<std::string>& overrides,
                    const std::filesystem::path& base_directory) {
  Config config;
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::ParserException& e) {
    throw InputError(fmt::format("{}:{}: invalid YAML: {}", source, e.mark.line + 1, e.msg));
  }
  if (!root.IsNull() && !root.IsMap())
    throw InputError(fmt::format("{}: the config must be a map of sections ({})", source, valid_sections<Config>()));
  // yaml-cpp keeps every entry of a map whose key is repeated; the last would silently win.
  std::map<std::string, int> first_line;
  auto refuse_repeat = [&](const std::string& what, const std::string& name, int line) {
    const auto [seen, inserted] = first_line.emplace(name, line);
    if (!inserted)
      throw InputError(fmt::format("{}:{}: {} '{}' is given twice (lines {} and {}); keep one", source, line, what,
                                   name, seen->second, line));
  };
  if (root.IsMap()) {
    for (const auto& section : root) {
      const std::string where = fmt::format("{}:{}", source, section.first.Mark().line + 1);
      const std::string section_name = yaml_key_text(section.first, where);
      refuse_repeat("section", section_name, section.first.Mark().line + 1);
      if (valid_keys<Config>(section_name).empty())
        throw InputError(fmt::format("{}: unknown section '{}'{} (valid: {})", where, section_name,
                                     did_you_mean(section_name, section_names<Config>()), valid_sections<Config>()));
      if (!section.second.IsMap())
        throw InputError(fmt::format("{}: section '{}' must be a map of keys (valid: {})", where, section_name,
                                     valid_keys<Config>(section_name)));
      for (const auto& entry : section.second) {
        const std::string entry_where = fmt::format("{}:{}", source, entry.first.Mark().line + 1);
        const std::string name = section_name + "." + yaml_key_text(entry.first, entry_where);
        const ConfigKey<Config>* key = find_key<Config>(name);
        if (!key)
          throw InputError(fmt::format("{}: unknown key '{}'{} (valid: {})", entry_where, name,
                                       did_you_mean_key<Config>(name), valid_keys<Config>(section_name)));
        refuse_repeat("key", name, entry.first.Mark().line + 1);
        assign(config, *key, entry.second, entry_where);
      }
    }
  }
  const std::filesystem::path base = base_directory.empty() ? std::filesystem::current_path() : base_directory;
  for (const auto& key : Config::schema()) resolve_path(config, key, base);
  for (const auto& assignment : overrides) apply_override(config, assignment);
  config.validate();
  return config;
}

// The whole-number keys against their ranges (for values set in code rather than parsed).
template <class Config>
void validate_whole_numbers(const Config& config) {
  for (const auto& key : Config::schema()) {
    const auto target = key(config);
    if (const auto* member = std::get_if<int64_t*>(&target)) {
      const WholeRange range = whole_range_of(key);
      if (**member < range.minimum || **member > range.maximum)
        throw InputError(fmt::format("{} must be {} (got {})", key.name, whole_range_text(key), **member));
    }
  }
}

template <class Config>
std::string value_of(const Config& config, const ConfigKey<Config>& key) {
  return std::visit(
      [&](auto* member) -> std::string {
        using T = std::decay_t<decltype(*member)>;
        const auto& value = *member;
        if constexpr (std::is_same_v<T, std::vector<double>>) {
          std::vector<std::string> items;
          for (double v : value) items.push_back(fmt::format("{}", v));  // shortest text that reads back exactly
          return fmt::format("[{}]", fmt::join(items, ", "));
        } else if constexpr (std::is_same_v<T, bool>) {
          return value ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::string>) {
          return value.empty() ? "\"\"" : value;
        } else {
          return fmt::format("{}", value);  // doubles: the shortest text that reads back exactly
        }
      },
      key(config));
}

// Every key with its value, by section, under a first comment line `title`.
template <class Config>
std::string to_yaml(const Config& config, const std::string& title) {
  std::string out = "# " + title + "\n";
  std::string section;
  for (const auto& key : Config::schema()) {
    if (section_of(key.name) != section) {
      section = section_of(key.name);
      out += section + ":\n";
    }
    out += fmt::format("  {}: {}\n", key.name.substr(key.name.find('.') + 1), value_of(config, key));
  }
  return out;
}

// A table cell's text with its pipes escaped: an unescaped | (E|x|, A||B) would split the cell in Markdown.
inline std::string markdown_cell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

// The README table: key, default, unit, description (Markdown).
template <class Config>
std::string markdown_reference() {
  const Config defaults;
  std::string out = "| key | default | unit | meaning |\n|---|---|---|---|\n";
  for (const auto& key : Config::schema())
    out += fmt::format("| `{}` | `{}` | {} | {} |\n", markdown_cell(key.name), markdown_cell(value_of(defaults, key)),
                       markdown_cell(key.unit), markdown_cell(key.description));
  return out;
}

}  // namespace config_schema
}  // namespace noiselearn
