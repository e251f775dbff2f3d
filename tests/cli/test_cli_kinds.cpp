// The optimisers and losses a user names on the command line are the registered kinds (io/optimiser_kinds.cpp,
// io/loss_kinds.cpp): a mistyped one is one line naming the nearest, exit 2, and config-keys prints their listing as
// the registrations give it.
#include <catch2/catch.hpp>

#include "cli/run_noiselearn.hpp"
#include "io/config_schema.hpp"
#include "io/training_kinds.hpp"

#include <algorithm>
#include <filesystem>
#include <string>

using namespace noiselearn::testing;
using Catch::Matchers::Contains;

TEST_CASE("a mistyped optimiser.kind or loss.kind is one line naming the nearest registered kind, exit 2",
          "[cli][errors][kinds]") {
  const std::filesystem::path dir = scratch("kind-typos");
  write(dir / "ok.yaml", "grid: {range: 2, step: 1}\n");
  const Run optimiser = run_noiselearn("train ok.yaml --out r --set optimiser.kind=adma", dir);
  CHECK(optimiser.exit_code == 2);
  CHECK(error_line(optimiser) ==
        "noiselearn: error: optimiser.kind = 'adma' is not valid; did you mean 'adam'? (valid: adam, pgd, convex)\n");
  const Run loss = run_noiselearn("train ok.yaml --out r --set loss.kind=moment-accountant", dir);
  CHECK(loss.exit_code == 2);
  const std::string loss_error = error_line(loss);
  CHECK_THAT(
      loss_error,
      Contains("loss.kind = 'moment-accountant' is not valid; did you mean 'moments-accountant'? (valid: soft-pld,"));
  CHECK(std::count(loss_error.begin(), loss_error.end(), '\n') == 1);
  CHECK_FALSE(std::filesystem::exists(dir / "r"));
}

TEST_CASE("config-keys prints optimiser.kind and loss.kind as their registrations list them", "[cli][docs][kinds]") {
  const Run run = run_noiselearn("config-keys", scratch("config-keys-kinds"));
  REQUIRE(run.exit_code == 0);
  using noiselearn::config_schema::markdown_cell;
  CHECK_THAT(run.out, Contains("| `optimiser.kind` | `adam` |  | " +
                               markdown_cell(noiselearn::optimiser_kind_listing()) + " |\n"));
  CHECK_THAT(run.out,
             Contains("| `loss.kind` | `soft-pld` |  | " + markdown_cell(noiselearn::loss_kind_listing()) + " |\n"));
  for (const auto& kind : noiselearn::optimiser_kinds())
    CHECK_THAT(run.out, Contains(kind.name + " (" + markdown_cell(kind.summary) + ")"));
}
