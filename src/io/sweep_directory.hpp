#pragma once
// A sweep directory (what `noiselearn sweep` writes): the sweep file expanded (sweep_file.hpp) into one resolved config
// per point (points/<name>/config.yaml), points.csv, sweep.yaml, jobs.txt and the engine scripts (sweep_jobs.hpp).
// Writing the same sweep again is a no-op (unchanged configs keep their time stamps, the runs stay); a different sweep
// is refused unless `force`, which deletes the runs of the points whose config changed and the joblog. Every problem
// of the sweep file is an InputError before anything is written.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace noiselearn {

struct SweepDirectoryOptions {
  std::filesystem::path sweep_file;
  std::filesystem::path directory;
  bool force = false;
  std::filesystem::path binary;        // noiselearn as the machines running the jobs see it
  int job_threads = 1;                 // --threads of every training, and Slurm's --cpus-per-task
  std::string parallel_jobs = "100%";  // GNU parallel's -j: a number or a percentage of the cores
};

struct SweepDirectorySummary {
  std::filesystem::path directory;  // absolute
  size_t points = 0;
  std::vector<std::string> varied_keys;
  size_t unchanged = 0;  // points whose config.yaml was already there, the same
};

SweepDirectorySummary write_sweep_directory(const SweepDirectoryOptions& options);

}  // namespace noiselearn
