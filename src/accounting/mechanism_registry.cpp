// The registry of mechanism kinds: one line per kind. A new mechanism is its own file in mechanisms/ (its pair, its
// parameters, a function returning its MechanismKind) and one line here.
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "accounting/mechanism_pair.hpp"
#include "core/errors.hpp"
#include "core/nearest_word.hpp"

namespace noiselearn {

MechanismKind gaussian_mechanism_kind();
MechanismKind laplace_mechanism_kind();
MechanismKind discrete_gaussian_mechanism_kind();
MechanismKind discrete_laplace_mechanism_kind();
MechanismKind table_mechanism_kind();

const std::vector<MechanismKind>& mechanism_kinds() {
  static const std::vector<MechanismKind> kinds{
      gaussian_mechanism_kind(),         laplace_mechanism_kind(), discrete_gaussian_mechanism_kind(),
      discrete_laplace_mechanism_kind(), table_mechanism_kind(),
  };
  return kinds;
}

const MechanismKind& mechanism_kind(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& kind : mechanism_kinds()) {
    if (kind.name == name) return kind;
    names.push_back(kind.name);
  }
  throw InputError(
      fmt::format("unknown mechanism '{}'{} (known: {})", name, did_you_mean(name, names), fmt::join(names, ", ")));
}

double parse_event_number(const std::string& text, const std::string& key, const std::string& where) {
  size_t used = 0;
  double value = NAN;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(value))
    throw InputError(fmt::format("{}: {} must be a number (got '{}')", where, key, text));
  return value;
}

MechanismValues mechanism_values(const MechanismKind& kind,
                                 const std::vector<std::pair<std::string, std::string>>& fields,
                                 const std::string& where) {
  MechanismValues values;
  std::vector<std::string> keys;
  for (const auto& p : kind.parameters) keys.push_back(p.key);
  for (const auto& [key, text] : fields) {
    const MechanismParameter* parameter = nullptr;
    for (const auto& p : kind.parameters)
      if (p.key == key) parameter = &p;
    if (!parameter)
      throw InputError(fmt::format("{}: mechanism '{}' has no parameter '{}'{} (its parameters: {})", where, kind.name,
                                   key, did_you_mean(key, keys), fmt::join(keys, ", ")));
    if (parameter->table) continue;
    const double value = parse_event_number(text, key, where);
    if (!(value > 0.0) || !std::isfinite(value))
      throw InputError(fmt::format("{}: {} must be positive and finite (got {})", where, key, text));
    if (parameter->integer && (value != std::floor(value) || value > 1e15))
      throw InputError(fmt::format("{}: {} must be a whole number (got {})", where, key, text));
    values[key] = value;
  }
  for (const auto& p : kind.parameters) {
    if (values.count(p.key) || p.table) continue;
    if (!p.default_value)
      throw InputError(
          fmt::format("{}: mechanism '{}' needs {} ({}, in {})", where, kind.name, p.key, p.meaning, p.unit));
    values[p.key] = *p.default_value;
  }
  return values;
}

MechanismTables mechanism_tables(const MechanismKind& kind,
                                 const std::vector<std::pair<std::string, std::string>>& fields,
                                 const std::string& where, const TableReader& read) {
  MechanismTables tables;
  for (const auto& p : kind.parameters) {
    if (!p.table) continue;
    const std::string* path = nullptr;
    for (const auto& [key, text] : fields)
      if (key == p.key) path = &text;
    if (!path) throw InputError(fmt::format("{}: mechanism '{}' needs {} ({})", where, kind.name, p.key, p.meaning));
    if (path->empty())
      throw InputError(fmt::format("{}: {} is empty (give the path of a noise table file)", where, p.key));
    if (!read)
      throw InputError(
          fmt::format("{}: {} '{}': no table reader here (the CLI and Python read tables)", where, p.key, *path));
    try {
      tables[p.key] = read(*path);
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: {}: {}", where, p.key, e.what()));
    }
  }
  return tables;
}

}  // namespace noiselearn
