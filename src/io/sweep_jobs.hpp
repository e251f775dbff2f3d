#pragma once
// The job list of a sweep directory and the two engines' scripts that run it (README, "Running a sweep"):
//   jobs.txt            one shell command per point: `noiselearn train <point>/config.yaml --out <point>/run
//                       --skip-if-complete --force >> <point>/train.log 2>&1`, absolute paths, shell-quoted
//   run-parallel.sh     GNU parallel over jobs.txt with a joblog (--resume-failed); extra arguments go to
//                       parallel (--sshloginfile hosts.txt for several machines)
//   slurm-array.sbatch  a Slurm job array, task i running line i of jobs.txt
// Every line skips a point whose run directory is already complete (io/run_status.hpp), so any engine can be
// re-run after a kill, a time-out or a failure and trains only what is missing.
#include <cstddef>
#include <filesystem>
#include <string>

namespace noiselearn {

struct SweepJobOptions {
  std::filesystem::path binary;        // absolute path of noiselearn on the machines that run the jobs
  int job_threads = 1;                 // --threads of every training (and Slurm's --cpus-per-task)
  std::string parallel_jobs = "100%";  // GNU parallel's -j: a number, or a percentage of the cores
};

// The command of one point (point_directory absolute).
std::string sweep_job_line(const SweepJobOptions& options, const std::filesystem::path& point_directory);

std::string parallel_script(const SweepJobOptions& options, const std::filesystem::path& sweep_directory);

std::string slurm_array_script(const SweepJobOptions& options, const std::filesystem::path& sweep_directory,
                               size_t points);

}  // namespace noiselearn
