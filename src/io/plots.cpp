#include "io/plots.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "core/errors.hpp"
#include "io/atomic_file.hpp"

namespace noiselearn {

namespace fs = std::filesystem;

bool gnuplot_available() { return std::system("command -v gnuplot > /dev/null 2>&1") == 0; }

namespace {

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

std::string table_plot(const fs::path& dir) {
  std::string script = fmt::format(
      "set output {}\n"
      "set title 'Noise table (log scale)'\nset xlabel 'x'\nset ylabel 'p(x)'\nset logscale y\nset format y '1e%L'\n"
      "set key top right\n",
      quoted(dir / "table.png"));
  std::string plots = fmt::format("{} using 1:($2 > 0 ? $2 : 1/0) with lines lw 2 title 'learned'", quoted(dir / "noise.csv"));
  if (fs::exists(dir / "baseline.csv"))
    plots += fmt::format(", {} using 1:($2 > 0 ? $2 : 1/0) with lines lw 1 dt 2 title 'truncated Gaussian (same utility)'",
                         quoted(dir / "baseline.csv"));
  return script + "plot " + plots + "\nunset logscale y\nset format y '%g'\n";
}

std::string certificate_plot(const fs::path& dir) {
  return fmt::format(
      "set output {}\n"
      "set title 'Certified delta(epsilon)'\nset xlabel 'epsilon'\nset ylabel 'delta'\nset logscale y\nset format y '1e%L'\n"
      "set key top right\n"
      "plot {} using 1:($2 > 0 ? $2 : 1/0) with lines lw 2 title 'learned, upper', "
      "'' using 1:($3 > 0 ? $3 : 1/0) with lines lw 1 dt 2 title 'learned, lower', "
      "'' using 1:($4 > 0 ? $4 : 1/0) with lines lw 2 title 'truncated Gaussian (same utility), upper', "
      "'' using 1:($5 > 0 ? $5 : 1/0) with lines lw 1 dt 2 title 'truncated Gaussian (same utility), lower'\n"
      "unset logscale y\nset format y '%g'\n",
      quoted(dir / "certificate.png"), quoted(dir / "comparison_curves.csv"));
}

std::string history_plot(const fs::path& dir) {
  return fmt::format(
      "set output {}\n"
      "set title 'Training history'\nset xlabel 'epoch'\nset logscale y\nset format y '1e%L'\nset key top right\n"
      "plot {} using 1:($3 > 0 ? $3 : 1/0) with lines lw 2 title 'privacy surrogate', "
      "'' using 1:($4 > 0 ? $4 : 1/0) with lines lw 2 title 'utility', "
      "'' using 1:($5 > 0 ? $5 : 1/0) with lines lw 1 dt 2 title 'utility weight'\n"
      "unset logscale y\nset format y '%g'\n",
      quoted(dir / "history.png"), quoted(dir / "history.csv"));
}

}  // namespace

PlotResult plot_run(const fs::path& run_directory, bool overwrite) {
  PlotResult result;
  if (!fs::is_directory(run_directory)) throw InputError(fmt::format("{} is not a run directory", run_directory.string()));
  if (!fs::exists(run_directory / "noise.csv"))
    throw InputError(fmt::format("{} has no noise.csv: not a run directory", run_directory.string()));
  std::string script = "set terminal pngcairo size 1000,650 noenhanced\nset datafile separator ','\nset key autotitle columnhead\nset grid\n";
  std::vector<fs::path> images;
  script += table_plot(run_directory);
  images.push_back(run_directory / "table.png");
  if (fs::exists(run_directory / "comparison_curves.csv")) {
    script += certificate_plot(run_directory);
    images.push_back(run_directory / "certificate.png");
  }
  if (fs::exists(run_directory / "history.csv")) {
    script += history_plot(run_directory);
    images.push_back(run_directory / "history.png");
  }
  for (const auto& image : images)
    if (fs::exists(image) && !overwrite)
      throw InputError(fmt::format("refusing to overwrite existing file {} (use --force)", image.string()));
  const fs::path script_path = run_directory / "plots.gp";
  write_file_atomically(script_path, script, /*overwrite=*/true);  // generated, never written by a user
  if (!gnuplot_available()) {
    result.message = fmt::format("gnuplot is not installed: wrote the data and {} only (apt-get install gnuplot-nox)",
                                 script_path.string());
    return result;
  }
  const std::string command = fmt::format("gnuplot {} > {} 2>&1", quoted(script_path), quoted(run_directory / "plots.log"));
  if (std::system(command.c_str()) != 0) {
    result.message = fmt::format("gnuplot failed: see {}", (run_directory / "plots.log").string());
    return result;
  }
  fs::remove(run_directory / "plots.log");
  result.plotted = true;
  result.images = images;
  result.message = fmt::format("wrote {} plots to {}", images.size(), run_directory.string());
  return result;
}

}  // namespace noiselearn
