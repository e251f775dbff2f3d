#include "io/sweep_directory.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>

#include "core/counted_noun.hpp"
#include "core/errors.hpp"
#include "io/atomic_file.hpp"
#include "io/csv_row.hpp"
#include "io/run_directory.hpp"
#include "io/sweep_file.hpp"
#include "io/sweep_jobs.hpp"

namespace noiselearn {

namespace fs = std::filesystem;

namespace {

std::string text_or_empty(const fs::path& path) { return fs::is_regular_file(path) ? read_file(path) : std::string(); }

std::string points_csv(const SweepPlan& plan) {
  std::vector<std::string> header{"point"};
  header.insert(header.end(), plan.varied_keys.begin(), plan.varied_keys.end());
  std::string text = csv_row(header);
  for (const auto& point : plan.points) {
    std::vector<std::string> cells{point.name};
    cells.insert(cells.end(), point.values.begin(), point.values.end());
    text += csv_row(cells);
  }
  return text;
}

// The points of an earlier sweep in `directory` whose config differs from this plan's (or that this plan lacks),
// and whether the directory holds a sweep at all.
struct Difference {
  std::vector<std::string> changed;  // points of this plan whose existing config.yaml differs
  std::vector<std::string> dropped;  // points of the earlier sweep that this plan does not have
  bool points_csv_differs = false;
};

Difference compare_with_existing(const SweepPlan& plan, const fs::path& directory, const std::string& new_points_csv) {
  Difference difference;
  std::set<std::string> names;
  for (const auto& point : plan.points) {
    names.insert(point.name);
    const fs::path config = directory / "points" / point.name / "config.yaml";
    if (fs::exists(config) && read_file(config) != point.config.to_yaml()) difference.changed.push_back(point.name);
  }
  const std::string existing = text_or_empty(directory / "points.csv");
  difference.points_csv_differs = existing != new_points_csv;
  std::istringstream lines(existing);
  std::string line;
  std::getline(lines, line);  // header
  while (std::getline(lines, line))
    if (!line.empty() && !names.count(split_csv_row(line).front()))
      difference.dropped.push_back(split_csv_row(line).front());
  return difference;
}

std::string first_names(const std::vector<std::string>& names) {
  std::vector<std::string> shown(names.begin(), names.begin() + std::min<size_t>(names.size(), 3));
  return fmt::format("{}{}", fmt::join(shown, ", "),
                     names.size() > 3 ? fmt::format(" and {} more", names.size() - 3) : "");
}

}  // namespace

SweepDirectorySummary write_sweep_directory(const SweepDirectoryOptions& o) {
  if (o.job_threads < 1) throw InputError(fmt::format("--job-threads {} must be at least 1", o.job_threads));
  if (!std::regex_match(o.parallel_jobs, std::regex("[0-9]+%?")))
    throw InputError(fmt::format("--jobs '{}' must be a number of jobs or a percentage of the cores (e.g. 4 or 50%)",
                                 o.parallel_jobs));
  const SweepPlan plan = expand_sweep(o.sweep_file);  // every error of the sweep file before anything is written
  const fs::path directory = fs::absolute(o.directory).lexically_normal();
  SweepJobOptions jobs;
  jobs.binary = fs::absolute(o.binary);
  jobs.job_threads = o.job_threads;
  jobs.parallel_jobs = o.parallel_jobs;
  const std::string new_points_csv = points_csv(plan);

  // An earlier sweep in DIR: the same expansion again is a no-op (its points and runs stay); anything else is
  // refused unless --force, which then deletes the runs of the points whose config changed.
  bool replace = false;
  Difference difference;
  if (fs::exists(directory) && !fs::is_directory(directory))
    throw InputError(fmt::format("{} exists and is not a directory", directory.string()));
  if (fs::is_directory(directory) && !fs::is_empty(directory)) {
    if (!fs::exists(directory / "points.csv")) {
      if (!o.force)
        throw InputError(
            fmt::format("{} is not empty and holds no sweep (no points.csv); choose another --out, or --force to "
                        "write the sweep into it",
                        directory.string()));
    } else {
      difference = compare_with_existing(plan, directory, new_points_csv);
      replace = !difference.changed.empty() || difference.points_csv_differs;
      if (replace && !o.force) {
        const std::string what =
            !difference.changed.empty()
                ? fmt::format("the config of {} differs ({})", counted_noun(difference.changed.size(), "point"),
                              first_names(difference.changed))
                : fmt::format("its points differ (points.csv{})",
                              difference.dropped.empty()
                                  ? ""
                                  : fmt::format("; not in this sweep: {}", first_names(difference.dropped)));
        throw InputError(
            fmt::format("{} holds a different sweep: {}; --force replaces it (deleting the runs of changed points)",
                        directory.string(), what));
      }
    }
  }
  prepare_run_directory(directory, /*force=*/true);
  if (directory.string().find_first_of(" \t") != std::string::npos)
    spdlog::warn(
        "{} contains white space: slurm-array.sbatch's #SBATCH --output line cannot hold it; pass --output to sbatch",
        directory.string());

  for (const auto& name : difference.changed) {
    fs::remove_all(directory / "points" / name / "run");
    fs::remove(directory / "points" / name / "train.log");
    spdlog::warn("point {}: its config changed, so its run directory was deleted", name);
  }
  if (!difference.dropped.empty())
    spdlog::warn("{} of the earlier sweep are not in this one and were left in {} ({})",
                 counted_noun(difference.dropped.size(), "point"), (directory / "points").string(),
                 first_names(difference.dropped));
  // The joblog numbers lines: after jobs.txt changes, its "succeeded" would skip other points.
  if (replace) fs::remove(directory / "joblog");

  std::string job_list;
  size_t written = 0;
  for (const auto& point : plan.points) {
    const fs::path point_directory = directory / "points" / point.name;
    const std::string config = point.config.to_yaml();
    if (text_or_empty(point_directory / "config.yaml") != config) {  // unchanged files keep their time stamps
      write_file_atomically(point_directory / "config.yaml", config, /*overwrite=*/true);
      ++written;
    }
    job_list += sweep_job_line(jobs, point_directory) + "\n";
  }
  write_file_atomically(directory / "sweep.yaml", plan.sweep_text, /*overwrite=*/true);
  write_file_atomically(directory / "points.csv", new_points_csv, /*overwrite=*/true);
  write_file_atomically(directory / "jobs.txt", job_list, /*overwrite=*/true);
  write_file_atomically(directory / "run-parallel.sh", parallel_script(jobs, directory), /*overwrite=*/true);
  write_file_atomically(directory / "slurm-array.sbatch", slurm_array_script(jobs, directory, plan.points.size()),
                        /*overwrite=*/true);
  fs::permissions(directory / "run-parallel.sh", fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::add);
  fs::create_directories(directory / "slurm");  // Slurm writes its task logs there but does not create it

  SweepDirectorySummary summary;
  summary.directory = directory;
  summary.points = plan.points.size();
  summary.varied_keys = plan.varied_keys;
  summary.unchanged = plan.points.size() - written;
  return summary;
}

}  // namespace noiselearn
