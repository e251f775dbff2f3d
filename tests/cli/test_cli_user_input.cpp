// What a user meets when a word is mistyped, a size is absurd, memory runs out, a table from another tool
// is slightly off, or plots are redrawn by hand from the run directory.
#include <catch2/catch.hpp>

#include "cli/run_noiselearn.hpp"

#include <sys/wait.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;

using namespace noiselearn::testing;
using Catch::Matchers::Contains;

TEST_CASE("a mistyped command or option is named with the nearest valid word, exit 2", "[cli]") {
  const fs::path dir = scratch("typos");
  write(dir / "t.csv", "x,p\n-1,0.25\n0,0.5\n1,0.25\n");
  const Run command = run_noiselearn("trian configs/quickstart.yaml", dir);
  CHECK(command.exit_code == 2);
  CHECK_THAT(error_line(command), Contains("unknown command 'trian'; did you mean 'train'?"));
  const Run option = run_noiselearn("evaluate t.csv --sensitivty 1", dir);
  CHECK(option.exit_code == 2);
  CHECK_THAT(error_line(option), Contains("unknown option '--sensitivty' for evaluate; did you mean '--sensitivity'?"));
  const Run with_value = run_noiselearn("evaluate t.csv --sensitivity 1 --compostions=2", dir);
  CHECK(with_value.exit_code == 2);
  CHECK_THAT(error_line(with_value), Contains("'--compostions'") && Contains("did you mean '--compositions'?"));
  // Nothing near: the word is named, no guess is made.
  const Run far = run_noiselearn("evaluate t.csv --sensitivity 1 --zzzzzzzz", dir);
  CHECK(far.exit_code == 2);
  CHECK_THAT(error_line(far), Contains("unknown option '--zzzzzzzz' for evaluate") && !Contains("did you mean"));
  // A known option with a missing value keeps the parser's own message.
  const Run missing = run_noiselearn("evaluate t.csv", dir);
  CHECK(missing.exit_code == 2);
  CHECK_THAT(error_line(missing), Contains("--sensitivity") && Contains("required"));
}

TEST_CASE("baseline refuses a grid too large to allocate, naming the option and the limit", "[cli]") {
  const fs::path dir = scratch("huge-grid");
  const Run run = run_noiselearn("baseline gaussian --sigma 1 --grid-step 1e-12 --range 20 --out g.csv", dir);
  CHECK(run.exit_code == 2);
  CHECK_THAT(error_line(run), Contains("--grid-step 1e-12 with --range 20 makes 4e+13 grid points; at most 100000001"));
  CHECK_THAT(run.err, !Contains("bad_alloc"));
  CHECK_FALSE(fs::exists(dir / "g.csv"));
}

TEST_CASE("running out of memory is one line 'out of memory', exit 1", "[cli]") {
  // A grid under the size limit (2e7 + 1 points) whose 160 MB of probabilities and 1 GB of CSV text cannot be
  // allocated under a 700 MB address-space limit (noiselearn with LibTorch starts in about 500 MB).
  const fs::path dir = scratch("out-of-memory");
  const fs::path err = dir / "stderr.txt";
  const int code =
      shell("cd '" + dir.string() + "' && ulimit -v 700000 && '" + NOISELEARN_BINARY +
            "' --threads 1 baseline uniform --grid-step 1e-6 --range 10 --out u.csv 2>'" + err.string() + "'");
  std::ifstream in(err);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  INFO(text);
  CHECK(code == 1);
  CHECK_THAT(text, Contains("noiselearn: failure: out of memory: baseline needed more memory than is available"));
  CHECK(text.find('\n') == text.size() - 1);  // one line
  CHECK_FALSE(fs::exists(dir / "u.csv"));
}

TEST_CASE("renormalise: a table whose sum is off by 1e-9 is read with --renormalise and says so", "[cli]") {
  const fs::path dir = scratch("renormalise");
  write(dir / "t.csv", "x,p\n-1,0.250000001\n0,0.5\n1,0.25\n");
  const Run strict = run_noiselearn("evaluate t.csv --sensitivity 1 --epsilon 1", dir);
  CHECK(strict.exit_code == 2);
  CHECK_THAT(error_line(strict),
             Contains("probabilities sum to 1.000000001") && Contains("--renormalise divides by the sum"));
  const Run renormalised = run_noiselearn("evaluate t.csv --sensitivity 1 --epsilon 1 --renormalise", dir);
  CHECK(renormalised.exit_code == 0);
  CHECK_THAT(renormalised.err, Contains("t.csv: probabilities summed to 1.000000001") && Contains("renormalised"));
  const Run too_far = run_noiselearn("evaluate t.csv --sensitivity 1 --renormalise --sum-tolerance 1e-10", dir);
  CHECK(too_far.exit_code == 2);
  CHECK_THAT(error_line(too_far), Contains("more than the renormalisation tolerance 1e-10"));
  const Run bad_tolerance = run_noiselearn("evaluate t.csv --sensitivity 1 --renormalise --sum-tolerance 2", dir);
  CHECK(bad_tolerance.exit_code == 2);
  CHECK_THAT(error_line(bad_tolerance), Contains("--sum-tolerance 2 must be in (0, 1)"));
}

TEST_CASE("a mistyped config key, section or value is named with the nearest valid one", "[cli][errors]") {
  const fs::path dir = scratch("config-typos");
  write(dir / "c.yaml", "grid: {range: 2, step: 1}\nlos: {epsilon: 1}\n");
  const Run section = run_noiselearn("train c.yaml --out r", dir);
  CHECK(section.exit_code == 2);
  CHECK_THAT(error_line(section), Contains("c.yaml:2: unknown section 'los'; did you mean 'loss'?"));
  write(dir / "k.yaml", "grid: {range: 2, step: 1}\nloss: {epsilom: 1}\n");
  const Run key = run_noiselearn("train k.yaml --out r", dir);
  CHECK(key.exit_code == 2);
  CHECK_THAT(error_line(key), Contains("unknown key 'loss.epsilom'; did you mean 'loss.epsilon'?"));
  // A key put under the wrong section is found in its own.
  write(dir / "ok.yaml", "grid: {range: 2, step: 1}\n");
  const Run moved = run_noiselearn("train ok.yaml --out r --set loss.step=0.5", dir);
  CHECK(moved.exit_code == 2);
  CHECK_THAT(error_line(moved), Contains("--set: unknown key 'loss.step'; did you mean 'grid.step'?"));
  const Run value = run_noiselearn("train ok.yaml --out r --set loss.kind=soft-pdl", dir);
  CHECK(value.exit_code == 2);
  CHECK_THAT(error_line(value), Contains("'soft-pdl' is not valid; did you mean 'soft-pld'?"));
  // Nothing near: no guess.
  const Run far = run_noiselearn("train ok.yaml --out r --set loss.zzzzzzzz=1", dir);
  CHECK(far.exit_code == 2);
  CHECK_THAT(error_line(far), Contains("unknown key 'loss.zzzzzzzz'") && !Contains("did you mean"));
  CHECK_FALSE(fs::exists(dir / "r"));
}

TEST_CASE("a sensitivity off the grid names the nearest values on it", "[cli][errors]") {
  const fs::path dir = scratch("off-grid");
  write(dir / "t.csv", "x,p\n-0.6,0.25\n-0.3,0.25\n0,0.25\n0.3,0.25\n");
  const Run run = run_noiselearn("evaluate t.csv --sensitivity 1", dir);
  CHECK(run.exit_code == 2);
  CHECK_THAT(error_line(run), Contains("sensitivity 1 is not a whole number of grid steps") &&
                                  Contains("the nearest on the grid: 0.9 or 1.2"));
  // Below one step, the only value on the grid above it.
  const Run small = run_noiselearn("evaluate t.csv --sensitivity 0.1", dir);
  CHECK(small.exit_code == 2);
  CHECK_THAT(error_line(small), Contains("the nearest on the grid: 0.3 ("));
  // What it names is accepted.
  CHECK(run_noiselearn("evaluate t.csv --sensitivity 0.9", dir).exit_code == 0);
}

TEST_CASE("a table summing to 0.95: the hint's options read it, and each refusal names the option to change",
          "[cli][errors]") {
  const fs::path dir = scratch("sum-hint");
  write(dir / "t.csv", "x,p\n-1,0.25\n0,0.45\n1,0.25\n");
  const Run strict = run_noiselearn("evaluate t.csv --sensitivity 1 --epsilon 1", dir);
  CHECK(strict.exit_code == 2);
  CHECK_THAT(error_line(strict),
             Contains("probabilities sum to 0.9499") && Contains("--renormalise --sum-tolerance 0.1"));
  // Following only half of it: the refusal names --sum-tolerance and the value that reads it.
  const Run half = run_noiselearn("--renormalise evaluate t.csv --sensitivity 1 --epsilon 1", dir);
  CHECK(half.exit_code == 2);
  CHECK_THAT(error_line(half),
             Contains("more than the renormalisation tolerance 1e-06") && Contains("--sum-tolerance 0.1"));
  // Following it: read, renormalised and said so. sample reads tables with its own reader and gives the same hint.
  const Run whole = run_noiselearn("--renormalise --sum-tolerance 0.1 evaluate t.csv --sensitivity 1 --epsilon 1", dir);
  CHECK(whole.exit_code == 0);
  CHECK_THAT(whole.err, Contains("renormalised"));
  const Run sample = run_noiselearn("sample t.csv --count 1", dir);
  CHECK(sample.exit_code == 2);
  CHECK_THAT(error_line(sample), Contains("--renormalise --sum-tolerance 0.1"));
  CHECK(run_noiselearn("--renormalise --sum-tolerance 0.1 sample t.csv --count 1 --seed 1", dir).exit_code == 0);
}

TEST_CASE(
    "evaluate and sample of a noiselearn table repeat its recorded certificate unless an option replaces a setting",
    "[cli]") {
  const fs::path dir = scratch("recorded-settings");
  REQUIRE(run_noiselearn(
              "baseline laplace --scale 2 --grid-step 0.05 --range 60 --out t.csv --sensitivity 1 -n 4 --delta 1e-5 "
              "--loss-step 1e-3",
              dir)
              .exit_code == 0);
  const auto metadata = read_json(dir / "t.json");
  REQUIRE(metadata.at("certificate").at("accountant").at("loss_step") == 1e-3);
  // No option: sensitivity, n, the query and the loss step are the recorded ones, so the certificate is the same.
  const Run again = run_noiselearn("evaluate t.csv --json", dir);
  REQUIRE(again.exit_code == 0);
  CHECK(nlohmann::json::parse(again.out) == metadata.at("certificate"));
  const Run text = run_noiselearn("evaluate t.csv", dir);
  CHECK_THAT(text.out, Contains("settings recorded in its noise.json") && Contains("loss step 0.001") &&
                           Contains("certificate: 4 compositions"));
  // An option replaces its setting only.
  const auto finer = nlohmann::json::parse(run_noiselearn("evaluate t.csv --json --loss-step 1e-4", dir).out);
  CHECK(finer.at("compositions") == 4);
  CHECK(finer.at("discretisation").at("loss_step") == 1e-4);
  const auto more = nlohmann::json::parse(run_noiselearn("evaluate t.csv --json -n 8", dir).out);
  CHECK(more.at("compositions") == 8);
  CHECK(more.at("discretisation").at("loss_step") == 1e-3);
  // sample --quantised-out certifies the source with the same settings: its source bound is the recorded one.
  const Run sample = run_noiselearn("sample t.csv --count 0 --quantised-out q", dir);
  REQUIRE(sample.exit_code == 0);
  const auto q = read_json(dir / "q" / "noise.json");
  CHECK(q.at("quantised_from").at("certificate") == metadata.at("certificate"));
  CHECK(q.at("pair").at("sensitivity") == 1.0);
  // A file written before the accountant's options were recorded: the discretisation's loss step is used.
  auto older = metadata;
  older["certificate"].erase("accountant");
  write(dir / "t.json", older.dump());
  CHECK(nlohmann::json::parse(run_noiselearn("evaluate t.csv --json", dir).out).at("discretisation").at("loss_step") ==
        1e-3);
  // A bare CSV records nothing: the sensitivity must be given.
  write(dir / "bare.csv", "x,p\n-1,0.25\n0,0.5\n1,0.25\n");
  const Run bare = run_noiselearn("evaluate bare.csv", dir);
  CHECK(bare.exit_code == 2);
  CHECK_THAT(error_line(bare), Contains("--sensitivity is required: bare.csv records none"));
}

TEST_CASE("a delta below the distinguishing events' mass: the certificate says why no epsilon certifies it", "[cli]") {
  const fs::path dir = scratch("no-epsilon");
  // Shift 1 on a 3-point table: an output only one input can produce has probability 1/4 per release, 1 - (3/4)^2
  // after two.
  write(dir / "t.csv", "x,p\n-1,0.25\n0,0.5\n1,0.25\n");
  const Run run = run_noiselearn("evaluate t.csv --sensitivity 1 -n 2 --delta 1e-3", dir);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out,
             Contains("epsilon in [inf, inf]") &&
                 Contains("no epsilon certifies delta = 0.001: the distinguishing events (outputs one input cannot "
                          "produce) alone have probability 0.437 after 2 compositions"));
}
