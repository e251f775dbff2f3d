#pragma once
// Reading an exported noise table (noise.csv + noise.json, see README "Files") without LibTorch.
//
// The full reader (io/table_files) lives in noiselearn_io, which links the accountant and LibTorch; a service
// that only samples should not carry either. This reader accepts the same files with the same checks: the
// CSV's checksum against the "csv_checksum" of its JSON (FNV-1a, io/checksum.hpp), the grid declared in the
// JSON, finite non-negative probabilities summing to 1 within 1e-12. A CSV without its JSON is read as a bare
// x,p table whose uniform grid is inferred from its first and last rows. Tables with geometric tails (infinite
// support) are refused: a finite sampler would have to cut the tails, which changes the guarantee.
// Every problem is a noiselearn::InputError naming the file (and line): the CLI exits with code 2.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace noiselearn::sampler {

struct SamplerTable {
  double origin = 0.0;  // grid point i is origin + i * step
  double step = 1.0;
  std::vector<double> probabilities;
  nlohmann::json metadata = nlohmann::json::object();  // empty for a bare CSV

  size_t size() const { return probabilities.size(); }
  double x(size_t i) const { return origin + step * static_cast<double>(i); }
  // Integer grid: origin and step are whole numbers, so every point is an integer.
  bool is_integer_grid() const;
};

// `renormalise_within`: 0 (the default) requires the sum to be 1 within 1e-12; a positive value accepts a sum
// within that distance of 1 and divides by it (tables of other tools, rounded to 9 digits), like the global
// option --renormalise of the CLI. The metadata then records "renormalised": {"sum": S}.
SamplerTable read_sampler_table(const std::filesystem::path& csv_path, double renormalise_within = 0.0);

}  // namespace noiselearn::sampler
