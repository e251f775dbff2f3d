#include "io/sweep_file.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <map>
#include <set>

#include "core/errors.hpp"
#include "io/atomic_file.hpp"
#include "io/yaml_key.hpp"

namespace noiselearn {

namespace fs = std::filesystem;

namespace {

using Key = TrainingConfig::Key;

// Sweeps beyond this are a typo (a range with steps: 1e9), not a study: refused before any point is built.
constexpr size_t kMaxPoints = 1000000;

// One axis of the product: a vary key alone, or a zip group. values[i][k]: the text of key k at step i.
struct Axis {
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> values;
};

class SweepReader {
 public:
  explicit SweepReader(fs::path path) : path_(std::move(path)), directory_(fs::absolute(path_).parent_path()) {}

  std::string at(const YAML::Node& node) const { return fmt::format("{}:{}", path_.string(), node.Mark().line + 1); }

  [[noreturn]] void fail(const YAML::Node& node, const std::string& message) const {
    throw InputError(fmt::format("{}: {}", at(node), message));
  }

  // The training-config key a sweep entry names, or an error listing what is valid.
  const Key& key_named(const YAML::Node& name_node, const std::string& entry) {
    const std::string name = yaml_key_text(name_node, at(name_node));
    if (const Key* key = config_schema::find_key<TrainingConfig>(name)) {
      const auto [seen, inserted] = lines_.emplace(name, name_node.Mark().line + 1);
      if (!inserted)
        fail(name_node, fmt::format("{}: key '{}' is given twice in the sweep (lines {} and {}); keep one", entry, name,
                                    seen->second, name_node.Mark().line + 1));
      return *key;
    }
    const std::string section = config_schema::section_of(name);
    const std::string valid = config_schema::valid_keys<TrainingConfig>(section);
    if (name.find('.') == std::string::npos || valid.empty())
      fail(name_node,
           fmt::format("{}: unknown key '{}'{} (keys are written section.key, e.g. loss.epsilon; valid sections: {})",
                       entry, name, config_schema::did_you_mean_key<TrainingConfig>(name),
                       config_schema::valid_sections<TrainingConfig>()));
    fail(name_node, fmt::format("{}: unknown key '{}'{} (valid: {})", entry, name,
                                config_schema::did_you_mean_key<TrainingConfig>(name), valid));
  }

  // The text of one value, checked against the key's type at its own line; a relative path is made relative to
  // the sweep file (as a path in a config file is relative to that file).
  std::string value_text(const Key& key, const YAML::Node& value, const std::string& entry) {
    if (value.IsNull()) fail(value, fmt::format("{}: {} has no value", entry, key.name));
    TrainingConfig scratch;
    config_schema::assign(scratch, key, value, fmt::format("{}: {}", at(value), entry));
    std::string text;
    if (value.IsScalar()) {
      text = value.Scalar();
    } else {  // a list for a list-valued key (assign accepted it)
      std::vector<std::string> items;
      for (const auto& item : value) items.push_back(item.Scalar());
      text = fmt::format("[{}]", fmt::join(items, ", "));
    }
    if (key.unit == "path" && !text.empty() && fs::path(text).is_relative())
      text = fs::absolute(directory_ / text).lexically_normal().string();
    return text;
  }

  // A list (every item a value) or a range mapping; never empty, and (`unique`: a vary key) never a value twice.
  std::vector<std::string> values_of(const Key& key, const YAML::Node& node, const std::string& entry,
                                     bool unique = true) {
    std::vector<std::string> values;
    if (node.IsSequence()) {
      if (node.size() == 0)
        fail(node, fmt::format("{}: {} has an empty list (give at least one value)", entry, key.name));
      for (const auto& item : node) values.push_back(value_text(key, item, entry));
    } else if (node.IsMap()) {
      values = range_of(key, node, entry);
    } else {
      fail(node,
           fmt::format("{}: {} must be a list [a, b, ...] or a range {{from: a, to: b, steps: k, scale: linear|log}} "
                       "(got '{}')",
                       entry, key.name, node.IsScalar() ? node.Scalar() : "nothing"));
    }
    std::set<std::string> seen;
    for (const auto& v : values)
      if (!seen.insert(v).second && unique)
        fail(node, fmt::format("{}: {} lists the value '{}' twice", entry, key.name, v));
    return values;
  }

  std::vector<std::string> range_of(const Key& key, const YAML::Node& node, const std::string& entry) {
    const bool whole = key.holds<int64_t>();
    if (!whole && !key.holds<double>())
      fail(node, fmt::format("{}: {} is not a number, so it takes a list of values, not a range", entry, key.name));
    std::optional<double> from, to;
    std::optional<int64_t> steps;
    bool log_scale = false;
    for (const auto& field : node) {
      const std::string name = yaml_key_text(field.first, at(field.first));
      const YAML::Node& v = field.second;
      auto number = [&](const char* what) {
        try {
          if (v.IsScalar()) {
            const double x = v.as<double>();
            if (std::isfinite(x)) return x;
          }
        } catch (const YAML::Exception&) {}
        fail(v, fmt::format("{}: {} range: {} must be a finite number (got '{}')", entry, key.name, what,
                            v.IsScalar() ? v.Scalar() : "not a number"));
      };
      if (name == "from") {
        from = number("from");
      } else if (name == "to") {
        to = number("to");
      } else if (name == "steps") {
        const double s = number("steps");
        if (s != std::floor(s) || s < 2 || s > double(kMaxPoints))
          fail(v, fmt::format("{}: {} range: steps must be a whole number from 2 to {} (got '{}')", entry, key.name,
                              config_schema::grouped(int64_t(kMaxPoints)), v.Scalar()));
        steps = static_cast<int64_t>(s);
      } else if (name == "scale") {
        const std::string scale = v.IsScalar() ? v.Scalar() : "";
        if (scale != "linear" && scale != "log")
          fail(v, fmt::format("{}: {} range: scale must be linear or log (got '{}')", entry, key.name, scale));
        log_scale = scale == "log";
      } else {
        fail(field.first,
             fmt::format("{}: {} range: unknown entry '{}' (valid: from, to, steps, scale)", entry, key.name, name));
      }
    }
    if (!from || !to || !steps)
      fail(node,
           fmt::format("{}: {} range needs from, to and steps (scale is optional: linear or log)", entry, key.name));
    if (*from == *to)
      fail(node,
           fmt::format("{}: {} range: from and to are both {} (give a list for one value)", entry, key.name, *from));
    if (log_scale && !(*from > 0 && *to > 0))
      fail(node, fmt::format("{}: {} range: scale log needs from and to positive (got from {} to {})", entry, key.name,
                             *from, *to));
    std::vector<std::string> values;
    for (double x : range_values(*from, *to, *steps, log_scale)) {
      // A whole-number key takes the nearest whole number (2^k on a log scale computes as 1.9999999999999998).
      const std::string text = whole ? fmt::format("{}", static_cast<int64_t>(std::llround(x))) : fmt::format("{}", x);
      values.push_back(value_text(key, YAML::Load(text), entry));
    }
    return values;
  }

  const fs::path& directory() const { return directory_; }

 private:
  fs::path path_;
  fs::path directory_;
  std::map<std::string, int> lines_;  // every key named by set, vary and zip, with its line
};

// A directory-name-safe rendering of a value: letters, digits and . + - _ stay, anything else becomes '_'.
std::string name_safe(const std::string& text) {
  std::string out;
  for (char c : text)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-' || c == '_') ? c : '_';
  return out.empty() ? "_" : out;
}

// The part of a point name for a key: "epsilon" unless another varied key ends the same ("loss.delta" and
// "target.delta" are then "loss-delta" and "target-delta").
std::vector<std::string> name_labels(const std::vector<std::string>& keys) {
  auto short_name = [](const std::string& key) { return key.substr(key.find('.') + 1); };
  std::vector<std::string> labels;
  for (const auto& key : keys) {
    size_t same = 0;
    for (const auto& other : keys) same += short_name(other) == short_name(key);
    std::string label = same > 1 ? key : short_name(key);
    for (char& c : label)
      if (c == '.') c = '-';
    labels.push_back(label);
  }
  return labels;
}

}  // namespace

std::vector<double> range_values(double from, double to, int64_t steps, bool log_scale) {
  std::vector<double> values;
  for (int64_t i = 0; i < steps; ++i) {
    const double t = static_cast<double>(i) / static_cast<double>(steps - 1);
    values.push_back(log_scale ? std::exp(std::log(from) + t * (std::log(to) - std::log(from)))
                               : from + t * (to - from));
  }
  values.front() = from;  // the ends exactly as written
  values.back() = to;
  return values;
}

namespace {

// What a sweep file's entries say: the base config (its text, the name its errors carry and the directory its
// relative paths start from), the keys fixed for every point, and the axes of the product.
struct SweepEntries {
  std::string base_text, base_source;
  fs::path base_directory;
  std::vector<std::string> fixed;  // "key=value" for every point
  std::vector<Axis> axes;
};

// base: a config file (a path relative to the sweep file) or an inline mapping.
void read_base(SweepReader& reader, const YAML::Node& node, const std::string& source, SweepEntries& entries) {
  if (node.IsScalar()) {
    fs::path base_path(node.Scalar());
    if (base_path.is_relative()) base_path = reader.directory() / base_path;
    if (!fs::is_regular_file(base_path))
      reader.fail(node, fmt::format("base: config file {} does not exist", base_path.lexically_normal().string()));
    entries.base_text = read_file(base_path);
    entries.base_source = base_path.lexically_normal().string();
    entries.base_directory = base_path.parent_path();
  } else if (node.IsMap()) {
    YAML::Emitter emitter;
    emitter << node;
    entries.base_text = emitter.c_str();
    entries.base_source = fmt::format("{} (base)", source);
  } else {
    reader.fail(node, "base must be a config file (a path) or a config (a mapping of sections)");
  }
}

// set: section.key: value, the same for every point.
void read_set(SweepReader& reader, const YAML::Node& node, SweepEntries& entries) {
  if (!node.IsMap()) reader.fail(node, "set must be a mapping of section.key: value");
  for (const auto& item : node) {
    const Key& key = reader.key_named(item.first, "set");
    entries.fixed.push_back(key.name + "=" + reader.value_text(key, item.second, "set"));
  }
}

// vary: section.key: a list or a range, one axis each.
void read_vary(SweepReader& reader, const YAML::Node& node, SweepEntries& entries) {
  if (!node.IsMap()) reader.fail(node, "vary must be a mapping of section.key: [values] or {from, to, steps, scale}");
  for (const auto& item : node) {
    const Key& key = reader.key_named(item.first, "vary");
    Axis axis;
    axis.keys = {key.name};
    for (auto& v : reader.values_of(key, item.second, "vary")) axis.values.push_back({v});
    entries.axes.push_back(axis);
  }
}

// One zip group: keys whose lists have one length and vary together, one axis.
Axis zip_axis(SweepReader& reader, const YAML::Node& group) {
  if (!group.IsMap() || group.size() == 0)
    reader.fail(group, "zip: a group must be a mapping of section.key: [values]");
  Axis axis;
  size_t length = 0;
  std::string first_key;
  for (const auto& item : group) {
    const Key& key = reader.key_named(item.first, "zip");
    if (!item.second.IsSequence())
      reader.fail(
          item.second,
          fmt::format("zip: {} must be a list (the keys of a group take their lists' values together)", key.name));
    // One key of a group may repeat a value (n = 1, 1, 2, 2 beside w = 1, 0.1, 1, 0.1); the tuples may not.
    const std::vector<std::string> values = reader.values_of(key, item.second, "zip", /*unique=*/false);
    if (axis.keys.empty()) {
      length = values.size();
      first_key = key.name;
      axis.values.resize(length);
    } else if (values.size() != length) {
      reader.fail(item.second, fmt::format("zip: {} has {} values but {} has {}; a group's lists must have one length",
                                           key.name, values.size(), first_key, length));
    }
    axis.keys.push_back(key.name);
    for (size_t i = 0; i < length; ++i) axis.values[i].push_back(values[i]);
  }
  std::set<std::vector<std::string>> tuples;
  for (const auto& tuple : axis.values)
    if (!tuples.insert(tuple).second)
      reader.fail(group, fmt::format("zip: the group ({}) gives the values ({}) twice", fmt::join(axis.keys, ", "),
                                     fmt::join(tuple, ", ")));
  return axis;
}

// The entries of the sweep file, each once: base, set, vary and zip.
SweepEntries read_entries(SweepReader& reader, const YAML::Node& root, const std::string& source) {
  SweepEntries entries;
  entries.base_source = source;
  entries.base_directory = reader.directory();
  std::set<std::string> names;
  for (const auto& entry : root) {
    const std::string name = yaml_key_text(entry.first, reader.at(entry.first));
    if (!names.insert(name).second) reader.fail(entry.first, fmt::format("'{}' is given twice; keep one", name));
    const YAML::Node& node = entry.second;
    if (name == "base") {
      read_base(reader, node, source, entries);
    } else if (name == "set") {
      read_set(reader, node, entries);
    } else if (name == "vary") {
      read_vary(reader, node, entries);
    } else if (name == "zip") {
      if (!node.IsSequence())
        reader.fail(node, "zip must be a list of groups, each a mapping of section.key: [values]");
      for (const auto& group : node) entries.axes.push_back(zip_axis(reader, group));
    } else {
      reader.fail(entry.first, fmt::format("unknown entry '{}' (valid: base, set, vary, zip)", name));
    }
  }
  return entries;
}

// The point at `index` of the product (mixed radix, the last axis fastest): its values, its name and its config,
// parsed and validated; a name another point already has is refused.
SweepPoint point_at(size_t index, const SweepEntries& entries, const std::vector<std::string>& varied_keys,
                    const std::vector<std::string>& labels, const std::string& source,
                    std::map<std::string, std::string>& names) {
  const std::vector<Axis>& axes = entries.axes;
  SweepPoint point;
  std::vector<std::string> overrides = entries.fixed;
  std::vector<size_t> digits(axes.size());
  size_t rest = index;
  for (size_t a = axes.size(); a-- > 0;) {
    digits[a] = rest % axes[a].values.size();
    rest /= axes[a].values.size();
  }
  std::vector<std::string> parts;
  for (size_t a = 0; a < axes.size(); ++a)
    for (const auto& value : axes[a].values[digits[a]]) point.values.push_back(value);
  for (size_t k = 0; k < varied_keys.size(); ++k) {
    overrides.push_back(varied_keys[k] + "=" + point.values[k]);
    parts.push_back(labels[k] + "=" + name_safe(point.values[k]));
  }
  point.name = parts.empty() ? "base" : fmt::format("{}", fmt::join(parts, ","));
  const std::string described = fmt::format("{}", fmt::join(point.values, ", "));
  const auto [seen, inserted] = names.emplace(point.name, described);
  if (!inserted)
    throw InputError(
        fmt::format("{}: the points ({}) and ({}) would both be named '{}' (values that differ only in "
                    "characters a directory name cannot hold); write them differently",
                    source, seen->second, described, point.name));
  try {
    point.config = TrainingConfig::parse(entries.base_text, entries.base_source, overrides, entries.base_directory);
  } catch (const InputError& e) {
    throw InputError(parts.empty() ? std::string(e.what())
                                   : fmt::format("{}: point {}: {}", source, point.name, e.what()));
  }
  return point;
}

}  // namespace

SweepPlan expand_sweep(const fs::path& sweep_path) {
  SweepPlan plan;
  plan.sweep_text = read_file(sweep_path);
  const std::string source = sweep_path.string();
  YAML::Node root;
  try {
    root = YAML::Load(plan.sweep_text);
  } catch (const YAML::ParserException& e) {
    throw InputError(fmt::format("{}:{}: invalid YAML: {}", source, e.mark.line + 1, e.msg));
  }
  if (!root.IsMap()) throw InputError(fmt::format("{}: a sweep file is a map with base, set, vary and zip", source));
  SweepReader reader(sweep_path);
  const SweepEntries entries = read_entries(reader, root, source);

  size_t count = 1;
  for (const auto& axis : entries.axes) {
    count *= axis.values.size();
    if (count > kMaxPoints)
      throw InputError(
          fmt::format("{}: the sweep has more than {} points", source, config_schema::grouped(int64_t(kMaxPoints))));
    for (const auto& key : axis.keys) plan.varied_keys.push_back(key);
  }
  const std::vector<std::string> labels = name_labels(plan.varied_keys);
  std::map<std::string, std::string> names;  // name -> the values it stands for, to refuse a collision
  for (size_t index = 0; index < count; ++index)
    plan.points.push_back(point_at(index, entries, plan.varied_keys, labels, source, names));
  return plan;
}

}  // namespace noiselearn
