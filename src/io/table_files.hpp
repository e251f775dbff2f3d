#pragma once
// The noise-table file pair (src/io/README.md, "File formats"):
//   noise.csv   columns x,p, one row per grid point, every double with 17 significant digits so that
//               reading it back gives the same bits;
//   noise.json  the metadata next to it (same stem): grid, support kind, provenance, and whatever other
//               modules add (utility, certificate, ...).
//
// A CSV without its JSON is a table written by another tool: its grid and support kind are inferred and
// checked, and LoadedTable::notes says what was inferred.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "accounting/mechanism_pair.hpp"
#include "core/noise_table.hpp"

namespace noiselearn {

// "format" and "version" of noise.json. A reader refuses a newer version rather than half-understand it.
inline constexpr const char* kNoiseTableFormat = "noiselearn-noise-table";
inline constexpr int kNoiseTableFormatVersion = 1;

// This build's version (the project's, CMakeLists.txt), as noise.json's "noiselearn_version" records it.
const char* noiselearn_version();

// The metadata path of a table: the CSV path with its extension replaced by ".json"
// (noise.csv -> noise.json, foo.csv -> foo.json).
std::filesystem::path metadata_path_for(const std::filesystem::path& csv_path);

// The metadata that describes the table itself:
//   {"format": "noiselearn-noise-table", "version": 1,
//    "grid": {"origin": double, "step": double, "size": integer},
//    "support": "symmetric" | "general" | "one-sided",
//    "source": string, "parameters": {name: double, ...}, "note": string,
//    "noiselearn_version": "0.1.0",
//    "tails": {"kind": "geometric", "ratio": r, "left_mass": double, "right_mass": double}}  (only for a table
//    with geometric tails: beyond each end of the grid p continues as p_end * r^k; read back from "ratio")
nlohmann::json table_metadata(const NoiseTable& table);

// Writes csv_path and its metadata file, both atomically. The metadata is `extra` (an object or null)
// with the keys of table_metadata(table) set from the table: the table is the truth about itself, so a
// caller may pass back the metadata it read (adding e.g. "certificate") without keeping it in sync.
// Refuses (InputError, before changing either file) to replace an existing CSV or JSON unless `overwrite`.
void write_noise_table(const NoiseTable& table, const std::filesystem::path& csv_path, const nlohmann::json& extra,
                       bool overwrite);

struct LoadedTable {
  NoiseTable table;
  nlohmann::json metadata;         // the whole metadata file; an empty object for a bare CSV
  std::vector<std::string> notes;  // what was inferred rather than read, for the user to see
};

// How strictly a table's sum is read. By default the probabilities must sum to 1 within kTableSumTolerance
// (1e-12): a table is a probability vector, and a sum off by more is usually a wrong column or a truncated
// file. Tables written by other tools in lower precision (or rounded to 9 digits) are off by ~1e-9;
// `renormalise` divides such a table by its sum when the sum is within `sum_tolerance` of 1, and the table
// says so (LoadedTable::notes, metadata "renormalised", and its provenance, which every later write keeps).
struct TableReadOptions {
  bool renormalise = false;
  double sum_tolerance = 1e-6;  // only with renormalise; larger deviations are still refused
};

// Reads and validates a table. With a metadata file, its grid and support kind are authoritative and the
// CSV must agree with them; without one, the CSV is a bare x,p table whose grid (uniform, strictly
// increasing x) and support kind are inferred. Every problem is an InputError of one line naming the
// file and, where there is one, the line: "noise.csv:17: 'abc' is not a number".
LoadedTable read_noise_table(const std::filesystem::path& csv_path, const TableReadOptions& options = {});

// Reads tables for the accountant's events (accounting/mechanism_pair.hpp, TableReader): a relative path from
// `relative_to` (an events file's folder; empty: the working directory), strictly (the sum to 1 within 1e-12).
TableReader table_file_reader(const std::filesystem::path& relative_to = {});

}  // namespace noiselearn
