// The gnuplot script of a run directory says what a reader needs to understand each plot: n, epsilon and
// the certified delta in the certificate's title (rounded in the bound's direction), the certified points,
// one line where the bounds coincide, the floor of distinguishing events, one labelled panel per quantity
// of the history, points for a short history, and file names relative to the run directory.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <string>

#include "io/plots.hpp"
#include "io/scratch_directory.hpp"
#include "io/table_files.hpp"

using namespace noiselearn;
using Catch::Matchers::Contains;
using nlohmann::json;
using noiselearn::testing::put_file;
using noiselearn::testing::ScratchDirectory;

namespace {

// A run directory as `noiselearn train` writes it, with numbers chosen so that rounding to nearest and
// rounding in the bound's direction print differently.
void write_run(const ScratchDirectory& dir, const std::string& curves, const std::string& history,
               double distinguishing_events = 5.2e-4) {
  json extra;
  extra["model"] = "sigmoid-stack";
  extra["loss"] = {{"kind", "soft-pld"}, {"epsilon", 1.0}, {"compositions", 4}};
  extra["pair"] = {{"kind", "additive"}, {"sensitivity", 1.0}};
  extra["utility"] = {{"l1", 4.49175}, {"l2", 5.64754}, {"second_moment", 31.9}, {"max_abs_error", 20.0}};
  extra["certificate"] = {
      {"compositions", 4},
      {"infinity_mass", {{"single_release", distinguishing_events / 4}, {"composed", distinguishing_events}}},
      // Upper 9.4111e-4 prints 0.0009411 to nearest: below the bound. Rounded up it is 0.0009412.
      {"delta_at_epsilon", json::array({{{"epsilon", 1.0}, {"delta_upper", 9.4111e-4}, {"delta_lower", 9.4109e-4}}})},
      {"epsilon_at_delta", json::array({{{"delta", 0.01}, {"epsilon_upper", 0.58511}, {"epsilon_lower", 0.585}},
                                        {{"delta", 1e-4}, {"epsilon_upper", nullptr}, {"epsilon_lower", nullptr}}})}};
  write_noise_table(NoiseTable(Grid{-1.0, 1.0, 3}, {0.25, 0.5, 0.25}), dir / "noise.csv", extra, false);
  put_file(dir / "config.yaml", "utility:\n  kind: l1\n");
  put_file(dir / "comparison_curves.csv", curves);
  put_file(dir / "history.csv", history);
}

// The learned bounds coincide; the Gaussian's lower bound is half its upper bound.
const char* kCurves =
    "epsilon,learned_delta_upper,learned_delta_lower,gaussian_delta_upper,gaussian_delta_lower\n"
    "0,0.5,0.5,0.6,0.3\n1,0.00094111,0.00094109,0.002,0.001\n2,0.00052,0.00052,0.0001,0.00005\n";
const char* kHistoryHeader = "epoch,loss,privacy,utility,utility_weight,learning_rate,seconds\n";

}  // namespace

// (No ';' in test names: CTest splits the registered name there and then runs nothing under it.)
TEST_CASE("certificate plot: title with n, epsilon and the directed delta, certified points, floor", "[plots]") {
  const ScratchDirectory dir;
  write_run(dir, kCurves, std::string(kHistoryHeader) + "1,0.1,0.05,5,0.001,0.01,0.2\n");
  const PlotScript script = plot_script(dir.path());
  const std::string& text = script.text;
  CHECK_THAT(text, Contains("after n = 4 compositions (sensitivity 1)"));
  // Upper rounded up, lower rounded down, the user's epsilon as given.
  CHECK_THAT(text, Contains("certified: delta <= 0.0009412 at epsilon = 1 (lower bound 0.0009410)") ||
                       Contains("certified: delta <= 0.0009412 at epsilon = 1 (lower bound 0.000941)"));
  CHECK_THAT(text, !Contains("0.0009411 at"));
  // The certified points of noise.json, marked and named; the infinite epsilon (delta below the floor) is not.
  // The data rows carry the bound exactly (17 significant digits), the label rounds it up.
  CHECK_THAT(text, Contains(fmt::format("$certified_delta << EOD\nepsilon,delta_upper\n1,{:.17g}\n", 9.4111e-4)) &&
                       Contains("certified delta(1) <= 0.0009412"));
  CHECK_THAT(text, Contains("certified epsilon(0.01) <= 0.5852"));
  CHECK_THAT(text, !Contains("epsilon(0.0001)"));
  // The floor of distinguishing events after n compositions, labelled with its value (a lower bound on delta).
  // The floor is a lower bound on delta, so its label rounds down: the double nearest 5.2e-4 is
  // 0.00051999999999999995..., printed 0.0005199.
  CHECK_THAT(text, Contains("floor: distinguishing events after n = 4 compositions have probability 0.0005199 "));
  // Bounds that coincide are one line that says so; bounds that differ are two.
  CHECK_THAT(text, Contains("learned: upper and lower bound coincide"));
  CHECK_THAT(text, !Contains("learned: lower bound"));
  CHECK_THAT(text, Contains("same l1: upper bound (certified)") && Contains("same l1: lower bound"));
}

TEST_CASE("certificate plot: a floor far below the curves, or none, is stated instead of drawn", "[plots]") {
  const ScratchDirectory dir;
  const std::string history = std::string(kHistoryHeader) + "1,0.1,0.05,5,0.001,0.01,0.2\n";
  SECTION("1e-300 after n compositions: below the plotted range") {
    write_run(dir, kCurves, history, 1e-300);
    const std::string text = plot_script(dir.path()).text;
    CHECK_THAT(text, Contains("distinguishing events after n = 4 compositions: probability 1e-300 (below the plot)"));
    CHECK_THAT(text, !Contains("floor:"));
  }
  SECTION("none") {
    write_run(dir, kCurves, history, 0.0);
    const std::string text = plot_script(dir.path()).text;
    CHECK_THAT(text, Contains("no distinguishing events: delta tends to 0 as epsilon grows"));
    CHECK_THAT(text, !Contains("floor:"));
  }
}

TEST_CASE("history plot: one labelled panel per quantity, points for a one-epoch history", "[plots]") {
  const ScratchDirectory dir;
  SECTION("one epoch") {
    write_run(dir, kCurves, std::string(kHistoryHeader) + "1,0.1,0.05,5,0.001,0.01,0.2\n");
    const std::string text = plot_script(dir.path()).text;
    CHECK_THAT(text, Contains("set multiplot layout 2,2"));
    CHECK_THAT(text, Contains("set ylabel \"delta surrogate (log scale)\""));
    CHECK_THAT(text, Contains("set ylabel \"l1\""));
    CHECK_THAT(text, Contains("set ylabel \"weight w (log scale)\""));
    CHECK_THAT(text, Contains("training surrogate of delta at epsilon = 1, n = 4 (soft-pld; not a certificate)"));
    CHECK_THAT(text, Contains("1 logged epoch\""));
    // A single point is invisible as a line.
    CHECK_THAT(text, Contains("using 1:($3 > 0 ? $3 : 1/0) with linespoints"));
    CHECK_THAT(text, Contains("unset key"));  // each panel's axis label names its one curve; no legend over the data
  }
  SECTION("a long history is drawn with lines") {
    std::string history = kHistoryHeader;
    for (int epoch = 1; epoch <= 100; ++epoch) history += std::to_string(epoch) + ",0.1,0.05,5,0.001,0.01,0.2\n";
    write_run(dir, kCurves, history);
    const std::string text = plot_script(dir.path()).text;
    CHECK_THAT(text, Contains("using 1:($3 > 0 ? $3 : 1/0) with lines lw 2"));
    CHECK_THAT(text, Contains("100 logged epochs"));
  }
  SECTION("an empty history draws no history plot") {
    write_run(dir, kCurves, kHistoryHeader);
    const PlotScript script = plot_script(dir.path());
    CHECK_THAT(script.text, !Contains("history.png"));
    CHECK(script.images == std::vector<std::filesystem::path>{"table.png", "certificate.png"});
  }
}

TEST_CASE("the plot script names its files relative to the run directory", "[plots]") {
  const ScratchDirectory dir;
  write_run(dir, kCurves, std::string(kHistoryHeader) + "1,0.1,0.05,5,0.001,0.01,0.2\n");
  const std::string text = plot_script(dir.path()).text;
  CHECK_THAT(text, !Contains(dir.path().string()));
  CHECK_THAT(text, Contains("set output 'table.png'") && Contains("'noise.csv' using"));
  CHECK_THAT(text, Contains("set output 'certificate.png'") && Contains("'comparison_curves.csv' using"));
  CHECK_THAT(text, Contains("set output 'history.png'") && Contains("'history.csv' using"));
}

TEST_CASE("history plot of a geometric-tail run: gamma, alpha, step and constraint residual against the iteration",
          "[plots]") {
  const ScratchDirectory dir;
  write_run(dir, kCurves,
            "iteration,alpha,worst_shift,gamma,objective,step,seconds,constraint_residual\n"
            "0,9.3,20,3.52,3.52,0,0.01,1e-16\n1,9.31,20,3.5,3.5,0.5,0.02,2e-16\n");
  const std::string text = plot_script(dir.path()).text;
  CHECK_THAT(text, Contains("Preconditioned gradient: 2 logged iterations"));
  CHECK_THAT(text, Contains("Renyi order alpha") && Contains("set xlabel 'iteration'"));
  CHECK_THAT(text, Contains("plot 'history.csv' using 1:4 ") && Contains("plot 'history.csv' using 1:2 "));
  CHECK_THAT(text, !Contains("Learning rate"));
}

TEST_CASE("a table written by baseline is named by its family in the plots, not called learned", "[plots]") {
  const ScratchDirectory dir;
  TableProvenance provenance;
  provenance.source = "baseline one-sided-optimum";
  write_noise_table(NoiseTable(Grid{0.0, 1.0, 3}, {0.25, 0.5, 0.25}, std::nullopt, provenance), dir / "noise.csv",
                    json::object(), false);
  const std::string text = plot_script(dir.path()).text;
  CHECK_THAT(text, Contains("Noise table p(x): baseline one-sided-optimum"));
  CHECK_THAT(text, !Contains("learned"));
}
