// noiselearn collect DIR: one row per point of a sweep directory (DIR/collected.csv, io/sweep_collection.hpp) and
// the frontier plot (DIR/frontier.png). Exit 0 when every point is done; 1 (a runtime failure) when some are
// failed or missing, after listing them on stderr and writing the CSV and the plot of the others.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>
#include <stdexcept>

#include "cli/command.hpp"
#include "core/counted_noun.hpp"
#include "io/atomic_file.hpp"
#include "io/plots.hpp"
#include "io/sweep_collection.hpp"

namespace noiselearn::cli {

namespace fs = std::filesystem;

namespace {

struct CollectOptions {
  std::string directory;
  std::vector<std::string> group_by;
};

void run_collect(const CollectOptions& o) {
  const fs::path directory(o.directory);
  const SweepCollection collection = collect_sweep(directory);
  const FrontierPlot frontier = frontier_plot(collection, o.group_by);  // --group-by checked before writing
  write_file_atomically(directory / "collected.csv", collected_csv(collection), /*overwrite=*/true);
  std::string plot_message = "no done point to plot";
  if (frontier.points > 0) {
    write_file_atomically(directory / "frontier.dat", frontier.data, /*overwrite=*/true);
    plot_message =
        run_plot_script(directory, PlotScript{frontier.script, {"frontier.png"}}, /*overwrite=*/true).message;
  }
  spdlog::info("{}", plot_message);
  for (const auto& point : collection.points)
    if (point.status.state != RunState::kDone)
      spdlog::warn("point {}: {}: {}", point.name, to_string(point.status.state), point.status.reason);
  const size_t done = collection.count(RunState::kDone), failed = collection.count(RunState::kFailed),
               missing = collection.count(RunState::kMissing);
  std::cout << fmt::format("Collected {} of {} into {} ({} failed, {} missing); frontier: {} series, {}.\n", done,
                           counted_noun(collection.points.size(), "point"), (directory / "collected.csv").string(),
                           failed, missing, frontier.series,
                           frontier.points > 0 ? (directory / "frontier.png").string() : "not drawn");
  if (done < collection.points.size())
    throw std::runtime_error(
        fmt::format("{} of {} are not done ({} failed, {} missing; listed above and in {}); re-run the "
                    "sweep's jobs to complete them",
                    failed + missing, counted_noun(collection.points.size(), "point"), failed, missing,
                    (directory / "collected.csv").string()));
}

}  // namespace

Command make_collect_command(CLI::App& parent) {
  auto o = std::make_shared<CollectOptions>();
  CLI::App* app = parent.add_subcommand(
      "collect",
      "Gather a sweep directory's results into collected.csv and frontier.png; exit 1 if some points are not done");
  app->add_option("directory", o->directory, "Sweep directory (written by noiselearn sweep)")->required();
  app->add_option(
      "--group-by", o->group_by,
      "Varied keys whose values make one frontier series (repeatable; default: every varied key but the last)");
  return Command{app, [o] { run_collect(*o); }};
}

}  // namespace noiselearn::cli
