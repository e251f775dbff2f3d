#include "io/sweep_jobs.hpp"

#include <fmt/format.h>

#include "io/shell_quoting.hpp"

namespace noiselearn {

namespace fs = std::filesystem;

std::string sweep_job_line(const SweepJobOptions& options, const fs::path& point_directory) {
  // --force only replaces what --skip-if-complete found incomplete (an interrupted or failed run of this point);
  // >> keeps the log of every attempt.
  return fmt::format(
      "{} --threads {} train {} --out {} --skip-if-complete --force >> {} 2>&1", shell_quoted(options.binary.string()),
      options.job_threads, shell_quoted((point_directory / "config.yaml").string()),
      shell_quoted((point_directory / "run").string()), shell_quoted((point_directory / "train.log").string()));
}

std::string parallel_script(const SweepJobOptions& options, const fs::path& sweep_directory) {
  return fmt::format(
      R"SH(#!/usr/bin/env bash
# Runs every point of this sweep with GNU parallel (written by `noiselearn sweep`; README, "Running a sweep").
#   ./run-parallel.sh                             {jobs} jobs at a time on this machine (NOISELEARN_JOBS=4 overrides)
#   ./run-parallel.sh --sshloginfile hosts.txt    on the machines listed in hosts.txt (one ssh login a line, ':'
#                                                 for this machine); they need this directory at the same path (a
#                                                 shared file system) and noiselearn at {binary}
# Any other argument goes to GNU parallel too (e.g. --eta, --dry-run). The joblog makes a re-run skip the lines
# that succeeded and retry the ones that failed (--resume-failed); independently of it, every line skips a point
# whose run directory is complete (train --skip-if-complete), so a re-run after a kill trains only what is missing.
# Then: noiselearn collect {sweep}
set -euo pipefail
sweep={sweep}
command -v parallel > /dev/null || {{ echo "run-parallel.sh: GNU parallel is not installed )SH"
      R"SH((Debian: apt-get install parallel)" >&2; exit 1; }}
exec parallel --joblog "$sweep/joblog" --resume-failed -j "${{NOISELEARN_JOBS:-{jobs}}}" "$@" < "$sweep/jobs.txt"
)SH",
      fmt::arg("jobs", options.parallel_jobs), fmt::arg("binary", shell_quoted(options.binary.string())),
      fmt::arg("sweep", shell_quoted(sweep_directory.string())));
}

std::string slurm_array_script(const SweepJobOptions& options, const fs::path& sweep_directory, size_t points) {
  return fmt::format(
      R"SH(#!/usr/bin/env bash
# One Slurm array task per point of this sweep (written by `noiselearn sweep`; README, "Running a sweep"):
# task i runs line i of jobs.txt. Options on sbatch's command line override the #SBATCH lines below:
#   sbatch {script}
#   sbatch --partition=cpu --time=04:00:00 --array=1-{points}%50 {script}   (at most 50 tasks at a time)
#   sbatch --array=7,12 {script}                                            (only lines 7 and 12)
# A cluster refuses arrays longer than its MaxArraySize (scontrol show config | grep MaxArraySize; often 1001):
# submit such a sweep in slices, --array=1-1000, then --array=1001-2000, ...
# Every task skips a point whose run directory is complete (train --skip-if-complete): resubmitting the whole
# array after a failure or a time-out trains only what is missing. Then: noiselearn collect {sweep}
#SBATCH --job-name=noiselearn-sweep
#SBATCH --array=1-{points}
#SBATCH --ntasks=1
#SBATCH --cpus-per-task={threads}
#SBATCH --output={output}
set -euo pipefail
line=$(sed -n "${{SLURM_ARRAY_TASK_ID}}p" {jobs})
if [ -z "$line" ]; then
  echo "slurm-array.sbatch: jobs.txt has no line $SLURM_ARRAY_TASK_ID" >&2
  exit 1
fi
exec bash -c "$line"
)SH",
      fmt::arg("script", shell_quoted((sweep_directory / "slurm-array.sbatch").string())), fmt::arg("points", points),
      fmt::arg("sweep", shell_quoted(sweep_directory.string())), fmt::arg("threads", options.job_threads),
      // #SBATCH lines are not shell: no quoting there (sbatch splits them at white space, see the README).
      fmt::arg("output", (sweep_directory / "slurm" / "%A_%a.out").string()),
      fmt::arg("jobs", shell_quoted((sweep_directory / "jobs.txt").string())));
}

}  // namespace noiselearn
