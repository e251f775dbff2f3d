#pragma once
// PNG plots of a run directory with gnuplot (Debian's gnuplot-nox): the learned table on a log scale with
// the matched truncated Gaussian, the certified delta(eps) curves (upper and lower) of both, and the
// training history. The gnuplot script (plots.gp) is always written next to the data, so plots can be made
// later or elsewhere; without gnuplot that is all that happens, and the result says so.
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

// Reads noise.csv, baseline.csv, comparison_curves.csv, history.csv from `run_directory` (those present) and
// writes plots.gp and, with gnuplot, table.png, certificate.png, history.png. Refuses to replace existing
// images unless `overwrite`.
PlotResult plot_run(const std::filesystem::path& run_directory, bool overwrite);

}  // namespace noiselearn
