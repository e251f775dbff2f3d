// Accountant pins: what the accountant and the other certifying commands print today, for every kind of pair,
// neighbour relation, several-pairs method and composition they take, recorded in tests/cli/pins/accountant/ and
// compared as the train pins are (pin_comparison.hpp: texts equal, numbers within 1e-9 relative). They pin the
// behaviour that the restructuring into one description per kind (options, registrations, one parser) must keep.
// To record them after an intended change: NOISELEARN_UPDATE_PINS=1 test_cli "[accountant-pins]", and say why in the
// commit.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/pin_comparison.hpp"
#include "cli/run_noiselearn.hpp"

namespace fs = std::filesystem;
using namespace noiselearn::testing;

namespace {

// The tables the commands read: made by noiselearn itself (baseline) or written here.
void prepare_accountant_tables(const fs::path& dir) {
  REQUIRE(run_noiselearn("baseline gaussian --sigma 2 --grid-step 0.1 --range 20 --out g.csv", dir).exit_code == 0);
  REQUIRE(run_noiselearn("baseline laplace --scale 1.5 --grid-step 0.1 --range 20 --out l.csv", dir).exit_code == 0);
  // A skewed 7-point table (the default's per-query example) and a two-piece Laplace (asymmetric, wide support).
  write(dir / "skew.csv",
        "x,p\n0,0.14163192877177827\n1,0.026741812862291218\n2,0.2778018584097398\n3,0.1202540024123008\n"
        "4,0.040171722941238476\n5,0.35673664672449895\n6,0.03666202787815256\n");
  std::string two = "x,p\n";
  double total = 0.0;
  std::vector<double> w;
  for (int x = -40; x <= 40; ++x) total += w.emplace_back(x >= 0 ? std::exp(-x / 2.0) : std::exp(x / 5.0));
  for (int x = -40; x <= 40; ++x) {
    char line[64];
    std::snprintf(line, sizeof line, "%d,%.17g\n", x, w[static_cast<size_t>(x + 40)] / total);
    two += line;
  }
  write(dir / "two.csv", two);
}

// Each case: a name (the recorded file) and the command line.
const std::vector<std::pair<std::string, std::string>>& accountant_cases() {
  static const std::vector<std::pair<std::string, std::string>> cases{
      {"additive-any-symmetric", "evaluate g.csv --sensitivity 0.5 -n 10 --delta 1e-6 --epsilon 1 --json"},
      {"additive-same-direction",
       "evaluate l.csv --sensitivity 0.5 -n 10 --neighbours same-direction --delta 1e-6 --json"},
      {"subsampled-symmetric",
       "evaluate g.csv --sensitivity 0.5 --pair subsampled --sampling-rate 0.1 -n 50 --delta 1e-5 --json"},
      {"auto-per-query-adaptive", "evaluate skew.csv --sensitivity 2 -n 3 --epsilon 1 --json"},
      {"envelope-only", "evaluate skew.csv --sensitivity 2 -n 3 --epsilon 1 --several-pairs envelope --json"},
      {"adaptive-always", "evaluate two.csv --sensitivity 1 -n 5 --delta 1e-3 --several-pairs adaptive --json"},
      {"adaptive-blocks",
       "evaluate two.csv --sensitivity 2 -n 60 --epsilon 2 --adaptive-budget 1e6 --adaptive-block-budget 1e7 "
       "--loss-step 1e-3 --json"},
      {"subsampled-asymmetric",
       "evaluate two.csv --sensitivity 1 --pair subsampled --sampling-rate 0.2 -n 5 --delta 1e-3 --json"},
      {"every-shift", "evaluate skew.csv --sensitivity 2 --shifts all -n 2 --epsilon 0.5 --json"},
      {"heterogeneous", "evaluate g.csv --sensitivity 0.5 -n 5 --with l.csv:3 --delta 1e-6 --json"},
      {"compare", "evaluate g.csv --sensitivity 0.5 -n 4 --delta 1e-6 --compare"},
      {"report-text", "evaluate two.csv --sensitivity 1 -n 20 --epsilon 1 --delta 1e-4"},
      {"boost", "boost --tau 10 --rho 0.9 --scale 0 --delta 1e-5"},
      {"config-keys-train", "config-keys train"},
      {"config-keys-maxl", "config-keys maxl"},
      {"config-keys-pac", "config-keys pac"},
  };
  return cases;
}

}  // namespace

TEST_CASE("accountant pins: every pair kind, relation, several-pairs method and composition certifies as recorded",
          "[cli][pins][accountant-pins]") {
  const fs::path recorded = fs::path(NOISELEARN_TEST_SCRIPTS) / "pins" / "accountant";
  const fs::path dir = scratch("accountant-pins");
  prepare_accountant_tables(dir);
  const bool update = std::getenv("NOISELEARN_UPDATE_PINS") != nullptr;
  if (update) fs::create_directories(recorded);
  for (const auto& [name, command] : accountant_cases()) {
    const Run run = run_noiselearn("--quiet " + command, dir);
    INFO(name << ": noiselearn " << command << "\n" << run.err);
    REQUIRE(run.exit_code == 0);
    const fs::path output = dir / (name + (command.find("--json") != std::string::npos ? ".json" : ".txt"));
    std::ofstream(output, std::ios::binary) << run.out;
    const fs::path pin = recorded / output.filename();
    if (update) {
      std::ofstream(pin, std::ios::binary) << normalised(output);
      continue;
    }
    REQUIRE(fs::exists(pin));
    CHECK(difference(read_text(pin), normalised(output)) == "");
  }
  if (update) WARN("recorded the accountant pins in " << recorded);
}
