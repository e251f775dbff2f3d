// plots.gp as a user runs it by hand, from the run directory, and noiselearn plot from anywhere.
#include <catch2/catch.hpp>

#include "cli/run_noiselearn.hpp"

#include <sys/wait.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

using namespace noiselearn::testing;
using Catch::Matchers::Contains;

TEST_CASE("plots.gp redraws the plots from the run directory, and noiselearn plot from anywhere", "[cli][plots]") {
  if (shell("command -v gnuplot > /dev/null 2>&1") != 0) {
    WARN("gnuplot is not installed (apt-get install gnuplot-nox): plots.gp not run");
    return;
  }
  const fs::path dir = scratch("plots-from-run-directory");
  // One epoch: the history plot must still show it.
  std::ofstream(dir / "tiny.yaml") << "grid:\n  range: 4\n  step: 0.1\nmodel:\n  sigmoids: 20\nloss:\n  epsilon: 1.0\n"
                                      "  compositions: 2\noptimiser:\n  epochs: 1\noutput:\n  log_every: 1\n";
  const Run train = run_noiselearn("train tiny.yaml --out run", dir);
  INFO(train.err);
  REQUIRE(train.exit_code == 0);
  const fs::path run = dir / "run";
  const std::vector<std::string> images{"table.png", "certificate.png", "history.png"};
  for (const auto& image : images) {
    REQUIRE(fs::exists(run / image));
    fs::remove(run / image);
  }
  // By hand, as the README says: from the run directory.
  CHECK(shell("cd '" + run.string() + "' && gnuplot plots.gp > gnuplot.log 2>&1") == 0);
  for (const auto& image : images) CHECK(fs::file_size(run / image) > 10000);
  // Through noiselearn, from another working directory.
  const fs::path elsewhere = scratch("plots-elsewhere");
  const Run plot = run_noiselearn("plot '" + run.string() + "' --force", elsewhere);
  INFO(plot.err);
  CHECK(plot.exit_code == 0);
  CHECK_THAT(plot.out, Contains("wrote 3 plots"));
  CHECK_FALSE(fs::exists(elsewhere / "table.png"));
}
