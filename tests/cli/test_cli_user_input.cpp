// What a user meets when a word is mistyped, a size is absurd, memory runs out, a table from another tool
// is slightly off, or plots are redrawn by hand from the run directory.
#include <catch2/catch.hpp>

#include "cli/run_noiselearn.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>

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
  const int code = shell("cd '" + dir.string() + "' && ulimit -v 700000 && '" + NOISELEARN_BINARY +
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
  CHECK_THAT(error_line(strict), Contains("probabilities sum to 1.000000001") && Contains("--renormalise divides by the sum"));
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
