// The utility-weight search of target mode, on a synthetic monotone trade-off.
#include <catch2/catch.hpp>

#include <cmath>

#include "train/target_search.hpp"

using namespace noiselearn;

namespace {

// A stand-in "training": the table does not matter, the trade-off does. delta(w) grows and utility(w) falls
// with the utility weight w.
NoiseTable dummy_table() { return NoiseTable(Grid{0.0, 1.0, 2}, {0.5, 0.5}); }
double delta_of(double w) { return 1e-6 * std::pow(w / 0.01, 2.0); }
double utility_of(double w) { return 3.0 - std::log10(w); }

}  // namespace

TEST_CASE("delta target: the largest feasible weight, i.e. the least utility loss", "[target]") {
  double last_weight = 0.0;
  auto train = [&](double w) {
    last_weight = w;
    return dummy_table();
  };
  auto evaluate = [&](const NoiseTable&) { return std::pair{delta_of(last_weight), utility_of(last_weight)}; };
  TargetSearchOptions options;
  options.target = 1e-6;  // met for w <= 0.01
  options.trials = 12;
  const TargetSearchResult result = search_utility_weight(train, evaluate, options);
  REQUIRE(result.best);
  const auto& best = result.trials[*result.best];
  CHECK(best.certified_delta <= 1e-6);
  CHECK(best.weight == Approx(0.01).epsilon(0.2));  // bracketed by factors of 10, then bisected
  for (const auto& trial : result.trials)
    if (trial.feasible) CHECK(trial.utility >= best.utility);
}

TEST_CASE("utility target: the smallest feasible weight, i.e. the least certified delta", "[target]") {
  double last_weight = 0.0;
  auto train = [&](double w) {
    last_weight = w;
    return dummy_table();
  };
  auto evaluate = [&](const NoiseTable&) { return std::pair{delta_of(last_weight), utility_of(last_weight)}; };
  TargetSearchOptions options;
  options.kind = TargetKind::kUtility;
  options.target = 4.0;  // utility <= 4 for w >= 0.1
  options.trials = 12;
  const TargetSearchResult result = search_utility_weight(train, evaluate, options);
  REQUIRE(result.best);
  CHECK(result.trials[*result.best].weight == Approx(0.1).epsilon(0.2));
  CHECK(result.trials[*result.best].utility <= 4.0);
}

TEST_CASE("an unreachable target is reported with the best value reached", "[target]") {
  auto train = [&](double) { return dummy_table(); };
  auto evaluate = [&](const NoiseTable&) { return std::pair{0.5, 1.0}; };
  TargetSearchOptions options;
  options.target = 1e-6;
  options.trials = 4;
  const TargetSearchResult result = search_utility_weight(train, evaluate, options);
  CHECK_FALSE(result.best);
  CHECK_THAT(result.message, Catch::Contains("cannot be met") && Catch::Contains("0.5"));
}
