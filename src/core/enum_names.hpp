#pragma once
// The names of an enumeration's values, as configs, options and output files write them, in one table per
// enumeration: to_string and parse read the same table, so a name cannot be added to one and not the other, and
// every refusal lists the valid names in the table's order.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "core/errors.hpp"

namespace noiselearn {

template <class Enum>
struct NamedValue {
  Enum value;
  std::string_view name;
};

template <class Enum, std::size_t N>
using NameTable = std::array<NamedValue<Enum>, N>;

// The name of `value`; "?" for a value outside the table (a cast integer).
template <class Enum, std::size_t N>
std::string_view name_of(const NameTable<Enum, N>& table, Enum value) {
  for (const auto& entry : table)
    if (entry.value == value) return entry.name;
  return "?";
}

// The value named `text`, if any.
template <class Enum, std::size_t N>
std::optional<Enum> find_named(const NameTable<Enum, N>& table, std::string_view text) {
  for (const auto& entry : table)
    if (entry.name == text) return entry.value;
  return std::nullopt;
}

// The names in order, for messages and for did_you_mean.
template <class Enum, std::size_t N>
std::vector<std::string> names_of(const NameTable<Enum, N>& table) {
  std::vector<std::string> names;
  for (const auto& entry : table) names.emplace_back(entry.name);
  return names;
}

// The value named `text`, or an InputError "unknown WHAT 'TEXT' (valid: a, b, c)".
template <class Enum, std::size_t N>
Enum parse_named(const NameTable<Enum, N>& table, const std::string& text, std::string_view what) {
  if (const auto value = find_named(table, text)) return *value;
  throw InputError(fmt::format("unknown {} '{}' (valid: {})", what, text, fmt::join(names_of(table), ", ")));
}

}  // namespace noiselearn
