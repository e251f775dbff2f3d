// noiselearn plot RUN_DIR: (re)draw the plots of a run directory with gnuplot.
#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>

#include "cli/command.hpp"
#include "io/plots.hpp"

namespace noiselearn::cli {

Command make_plot_command(CLI::App& parent) {
  struct Options {
    std::string directory;
    bool force = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* app =
      parent.add_subcommand("plot", "Draw table.png, certificate.png and history.png of a run directory (gnuplot)");
  app->add_option("run_dir", o->directory, "Run directory written by noiselearn train")->required();
  app->add_flag("--force", o->force, "Overwrite existing images");
  return Command{app, [o] {
                   const PlotResult result = plot_run(o->directory, o->force);
                   std::cout << result.message << "\n";
                 }};
}

}  // namespace noiselearn::cli
