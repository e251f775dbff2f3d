#pragma once
// How recorded outputs are compared with today's (the train pins, test_cli_pins.cpp, and the accountant pins,
// test_cli_accountant_pins.cpp): run times masked, volatile JSON keys dropped, texts equal and numbers within 1e-9
// relative, so that a change of summation order passes and any change of behaviour fails.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run_noiselearn.hpp"

namespace noiselearn::testing {

// Run times are the only thing allowed to change from run to run.
inline std::string mask_times(const std::string& text) {
  static const std::regex time(R"(\b\d+(\.\d+)? s\b)");
  return std::regex_replace(text, time, "<time> s");
}

inline void drop_volatile_keys(nlohmann::json& j) {
  if (j.is_object()) {
    for (const char* key : {"seconds", "csv_checksum"}) j.erase(key);
    for (auto& [key, value] : j.items()) drop_volatile_keys(value);
  } else if (j.is_array()) {
    for (auto& value : j) drop_volatile_keys(value);
  }
}

// The `seconds` column of a CSV file left out.
inline std::string drop_seconds_column(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  int column = -1;
  bool header = true;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream cells_in(line);
    for (std::string cell; std::getline(cells_in, cell, ',');) cells.push_back(cell);
    if (header) {
      for (size_t i = 0; i < cells.size(); ++i)
        if (cells[i] == "seconds") column = static_cast<int>(i);
      header = false;
    }
    if (column >= 0 && column < static_cast<int>(cells.size())) cells.erase(cells.begin() + column);
    for (size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + cells[i];
    out += "\n";
  }
  return out;
}

inline std::string normalised(const std::filesystem::path& path) {
  const std::string text = read_text(path);
  if (path.extension() == ".json") {
    nlohmann::json j = nlohmann::json::parse(text);
    drop_volatile_keys(j);
    return j.dump(2) + "\n";
  }
  if (path.extension() == ".csv") return mask_times(drop_seconds_column(text));
  return mask_times(text);
}

// Alternating text and numbers; the texts must be equal and the numbers within 1e-9 relative.
struct Pieces {
  std::vector<std::string> text;
  std::vector<double> numbers;
};

inline Pieces split(const std::string& s) {
  static const std::regex number(R"([-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)");
  Pieces p;
  std::string rest = s;
  std::smatch m;
  size_t from = 0;
  auto begin = std::sregex_iterator(s.begin(), s.end(), number);
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    p.text.push_back(s.substr(from, static_cast<size_t>(it->position()) - from));
    p.numbers.push_back(std::strtod(it->str().c_str(), nullptr));
    from = static_cast<size_t>(it->position() + it->length());
  }
  p.text.push_back(s.substr(from));
  return p;
}

// Empty when equal, else the first difference in words.
inline std::string difference(const std::string& expected, const std::string& actual) {
  const Pieces e = split(expected), a = split(actual);
  if (e.numbers.size() != a.numbers.size()) return "a different number of numbers";
  for (size_t i = 0; i < e.text.size(); ++i) {
    if (e.text[i] != a.text[i])
      return "text '" + e.text[i].substr(0, 80) + "' became '" + a.text[i].substr(0, 80) + "'";
    if (i < e.numbers.size()) {
      const double x = e.numbers[i], y = a.numbers[i];
      if (std::abs(x - y) > 1e-9 * std::max(std::abs(x), std::abs(y))) {
        std::ostringstream message;
        message.precision(17);
        message << "number " << x << " became " << y << " after '"
                << e.text[i].substr(e.text[i].size() > 60 ? e.text[i].size() - 60 : 0) << "'";
        return message.str();
      }
    }
  }
  return "";
}

}  // namespace noiselearn::testing
