#pragma once
// What the sweep tests share: a training small enough to take about a second, a sweep of it, and readers for the
// files a sweep directory holds.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "io/csv_row.hpp"

namespace noiselearn::testing {

// 81 grid points, 20 sigmoids, 20 epochs: about a second with the certificate and the Gaussian comparison.
inline const char* kSweepBaseConfig = R"(grid:
  range: 4
  step: 0.1
model:
  sigmoids: 20
loss:
  kind: soft-pld
  epsilon: 1.0
  compositions: 1
optimiser:
  epochs: 20
  learning_rate: 0.01
output:
  log_every: 10
  checkpoint_every: 0
  plots: false
)";

inline std::string file_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline std::vector<std::string> text_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  for (char c : text) {
    if (c == '\n') {
      lines.push_back(line);
      line.clear();
    } else {
      line += c;
    }
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

// A CSV with a header as one map per row (column -> cell).
inline std::vector<std::map<std::string, std::string>> csv_records(const std::filesystem::path& path) {
  const auto lines = text_lines(file_text(path));
  std::vector<std::map<std::string, std::string>> records;
  if (lines.empty()) return records;
  const auto header = noiselearn::split_csv_row(lines[0]);
  for (size_t i = 1; i < lines.size(); ++i) {
    const auto cells = noiselearn::split_csv_row(lines[i]);
    REQUIRE(cells.size() == header.size());
    std::map<std::string, std::string> record;
    for (size_t k = 0; k < header.size(); ++k) record[header[k]] = cells[k];
    records.push_back(record);
  }
  return records;
}

inline nlohmann::json json_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

}  // namespace noiselearn::testing
