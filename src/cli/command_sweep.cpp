// noiselearn sweep SWEEP.yaml --out DIR: expand a sweep file into a sweep directory (io/sweep_directory.hpp): one point
// directory per point, the job list and the engine scripts that run them. Nothing is trained here: GNU parallel or
// Slurm runs the jobs, `noiselearn collect DIR` gathers the results.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/cli_common.hpp"
#include "cli/command.hpp"
#include "core/counted_noun.hpp"
#include "io/sweep_directory.hpp"

namespace noiselearn::cli {

namespace fs = std::filesystem;

Command make_sweep_command(CLI::App& parent) {
  auto o = std::make_shared<SweepDirectoryOptions>();
  auto sweep_file = std::make_shared<std::string>(), out = std::make_shared<std::string>(),
       binary = std::make_shared<std::string>();
  CLI::App* app = parent.add_subcommand(
      "sweep", "Expand a sweep file into one training config per point, a job list and GNU parallel / Slurm scripts");
  app->add_option("sweep", *sweep_file, "Sweep file (YAML: base, set, vary, zip; see configs/README.md)")->required();
  app->add_option("--out", *out, "Sweep directory")->required();
  app->add_flag("--force", o->force,
                "Replace a different sweep in --out (deletes the runs of points whose config changed) or write into a "
                "non-empty directory");
  app->add_option("--binary", *binary,
                  "noiselearn as the machines running the jobs see it (default: this executable's absolute path)");
  app->add_option("--job-threads", o->job_threads, "--threads of every training (and Slurm's --cpus-per-task)")
      ->capture_default_str();
  app->add_option("--jobs", o->parallel_jobs, "Trainings at a time per machine in run-parallel.sh (GNU parallel's -j)")
      ->capture_default_str();
  return Command{
      app, [o, sweep_file, out, binary] {
        o->sweep_file = *sweep_file;
        o->directory = *out;
        o->binary = binary->empty() ? this_executable() : fs::path(*binary);
        const SweepDirectorySummary s = write_sweep_directory(*o);
        const std::string d = s.directory.string();
        std::cout << fmt::format(
            "Sweep of {} ({} varied: {}) in {}{}.\nRun it with GNU parallel: {}/run-parallel.sh (add --sshloginfile "
            "hosts.txt for several machines), or on Slurm: sbatch {}/slurm-array.sbatch. Then: noiselearn collect {}\n",
            counted_noun(s.points, "point"), counted_noun(s.varied_keys.size(), "key"),
            s.varied_keys.empty() ? "none" : fmt::format("{}", fmt::join(s.varied_keys, ", ")), d,
            s.unchanged == 0 ? "" : fmt::format(" ({} already there with the same config)", s.unchanged), d, d, d);
      }};
}

}  // namespace noiselearn::cli
