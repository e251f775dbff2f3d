#pragma once
// PNG plots of a run directory with gnuplot (Debian's gnuplot-nox), each meant to be read at a glance:
//   table.png        the learned table on a log scale, with the truncated Gaussian of the same utility;
//   certificate.png  the certified delta(epsilon) curves after n compositions (upper and lower bounds, one line
//                    when they coincide), the certified points of noise.json marked and the floor of
//                    distinguishing events (the infinity mass after n compositions) labelled;
//   history.png      one panel per logged quantity (delta surrogate, utility, utility weight, learning rate),
//                    each with its own axis label; points as well as lines for short histories.
// Every number printed on a plot that states a certified bound is rounded in the bound's direction
// (core/directed_format.hpp). The gnuplot script (plots.gp) is always written next to the data and names
// the files relative to the run directory, so `cd RUN_DIR && gnuplot plots.gp` redraws the plots;
// without gnuplot that is all that happens, and the result says so.
#include <filesystem>
#include <string>
#include <vector>

namespace noiselearn {

struct PlotResult {
  bool plotted = false;
  std::vector<std::filesystem::path> images;
  std::string message;  // what happened, for the user
};

bool gnuplot_available();

// The gnuplot script for `run_directory` (reads its noise.json, config.yaml and CSV files) and the images it
// draws, without running gnuplot. Paths in the script are relative to the run directory.
struct PlotScript {
  std::string text;
  std::vector<std::filesystem::path> images;  // file names, relative to the run directory
};
PlotScript plot_script(const std::filesystem::path& run_directory);

// Writes plots.gp into `run_directory` and, with gnuplot, runs it there (table.png, certificate.png,
// history.png, as far as the data for each is present). Refuses to replace existing images unless
// `overwrite`.
PlotResult plot_run(const std::filesystem::path& run_directory, bool overwrite);

// Writes `script` as plots.gp into `run_directory` and runs it there with gnuplot, as plot_run does (for run
// directories of other commands, which compose their own scripts). Refuses to replace existing images unless
// `overwrite`.
PlotResult run_plot_script(const std::filesystem::path& run_directory, const PlotScript& script, bool overwrite);

}  // namespace noiselearn
