// The utility-weight search of target mode, on synthetic trade-offs: which weights it tries, which table it
// keeps (never worse than the best certified candidate, the starting table included), where each trial
// starts, and what it says when it misses.
#include <catch2/catch.hpp>

#include <cmath>

#include "train/target_search.hpp"

using namespace noiselearn;

namespace {

// Tables stand for the weights that produced them: the probability of the first point encodes an id.
NoiseTable table_with_id(int id) {
  const double p = 1.0 / (2.0 + id);
  return NoiseTable(Grid{0.0, 1.0, 2}, {p, 1.0 - p});
}
int id_of(const NoiseTable& table) { return static_cast<int>(std::lround(1.0 / table.p(0) - 2.0)); }

// delta(w) grows and utility(w) falls with the utility weight w.
double delta_of(double w) { return 1e-6 * std::pow(w / 0.01, 2.0); }
double utility_of(double w) { return 3.0 - std::log10(w); }

// A search on a trade-off given as functions of the weight; the starting table has id 0 and its own values.
struct Synthetic {
  std::function<double(double)> delta = delta_of, utility = utility_of;
  double start_delta = 1.0, start_utility = 0.0;
  std::vector<double> weights{0.0};  // by id; id 0 is the starting table
  std::vector<size_t> starts;        // the `start` of every train() call
  TargetSearchResult run(const TargetSearchOptions& options) {
    auto train = [&](double w, size_t start) {
      starts.push_back(start);
      weights.push_back(w);
      return table_with_id(static_cast<int>(weights.size() - 1));
    };
    auto evaluate = [&](const NoiseTable& table) {
      const int id = id_of(table);
      if (id == 0) return std::pair{start_delta, start_utility};
      return std::pair{delta(weights[static_cast<size_t>(id)]), utility(weights[static_cast<size_t>(id)])};
    };
    return search_utility_weight(train, evaluate, table_with_id(0), options);
  }
};

}  // namespace

TEST_CASE("delta target: the largest feasible weight, i.e. the least utility loss", "[target]") {
  Synthetic synthetic;
  TargetSearchOptions options;
  options.target = 1e-6;  // met for w <= 0.01
  options.trials = 12;
  const TargetSearchResult result = synthetic.run(options);
  REQUIRE(result.best);
  REQUIRE(result.trials.size() == 13);  // the starting table, then 12 trials
  CHECK_FALSE(result.trials[0].trained);
  const auto& best = result.trials[*result.best];
  CHECK(best.certified_delta <= 1e-6);
  CHECK(best.weight == Approx(0.01).epsilon(0.2));  // bracketed by factors of 10, then bisected
  for (const auto& trial : result.trials)
    if (trial.feasible) CHECK(trial.utility >= best.utility);
}

TEST_CASE("utility target: the smallest feasible weight, i.e. the least certified delta", "[target]") {
  Synthetic synthetic;
  synthetic.start_utility = 100.0;
  TargetSearchOptions options;
  options.kind = TargetKind::kUtility;
  options.target = 4.0;  // utility <= 4 for w >= 0.1
  options.trials = 12;
  const TargetSearchResult result = synthetic.run(options);
  REQUIRE(result.best);
  CHECK(result.trials[*result.best].weight == Approx(0.1).epsilon(0.2));
  CHECK(result.trials[*result.best].utility <= 4.0);
}

TEST_CASE("a starting table that already meets the target is kept when no trial does better", "[target]") {
  // The reproducer of issue 7, item 5, in miniature: the truncated Gaussian start certifies delta 9.44e-6 <=
  // 1e-5, and every trial ends at 2.5e-4. The starting table is a candidate like any other: the search returns it,
  // neither the best trial's table nor a report that the target is unreachable.
  Synthetic synthetic;
  synthetic.start_delta = 9.44e-6;
  synthetic.start_utility = 16.0;
  synthetic.delta = [](double) { return 2.5e-4; };
  TargetSearchOptions options;
  options.target = 1e-5;
  options.trials = 4;
  const TargetSearchResult result = synthetic.run(options);
  REQUIRE(result.best);
  CHECK(*result.best == 0);
  CHECK(result.kept == 0);
  CHECK(result.trials[result.kept].certified_delta == 9.44e-6);
  CHECK_THAT(result.message, Catch::Contains("met by the starting table (certified delta 9.44"));
  // Every trial started from the starting table, the best candidate throughout.
  CHECK(synthetic.starts == std::vector<size_t>{0, 0, 0, 0});
}

TEST_CASE("every trial starts from the best candidate so far, never from a worse last trial", "[target]") {
  // delta falls with w up to trial 3, then one trial is much worse: the next must start from the best one.
  Synthetic synthetic;
  synthetic.start_delta = 0.5;
  // Weights tried: 0.5, 0.05, 0.005, 0.0005 (factors of 10 toward the target).
  synthetic.delta = [](double w) { return w > 0.1 ? 1e-3 : w > 0.01 ? 1e-4 : w > 0.001 ? 0.2 : 5e-5; };
  TargetSearchOptions options;
  options.target = 1e-6;
  options.trials = 4;
  const TargetSearchResult result = synthetic.run(options);
  // Trial 1 starts from the starting table; trial 2 from trial 1 (better than the start); trial 3 from trial 2;
  // trial 3 is worse than trial 2, so trial 4 starts from trial 2 again.
  CHECK(synthetic.starts == std::vector<size_t>{0, 1, 2, 2});
  CHECK(result.kept == 4);  // the closest: 5e-5
  CHECK_FALSE(result.best);
}

TEST_CASE("a missed target is reported with what the trials showed, not a guess about the grid", "[target]") {
  TargetSearchOptions options;
  options.target = 1e-9;
  options.trials = 4;
  options.epochs_per_trial = 1;
  SECTION("still falling at the smallest weight tried") {
    Synthetic synthetic;
    const TargetSearchResult result = synthetic.run(options);
    CHECK_FALSE(result.best);
    CHECK(result.kept == 4);  // the smallest weight, 5e-4
    CHECK_THAT(result.message, Catch::Contains("not met") &&
                                   Catch::Contains("still falling at the smallest weight tried") &&
                                   Catch::Contains("target.trials") && Catch::Contains("4 trials") &&
                                   Catch::Contains("1 epoch each") && !Catch::Contains("grid.range"));
  }
  SECTION("smaller weights got no closer") {
    Synthetic synthetic;
    synthetic.delta = [](double w) { return w >= 0.05 ? 1e-3 * w : 1e-2; };
    const TargetSearchResult result = synthetic.run(options);
    CHECK_FALSE(result.best);
    CHECK(result.trials[result.kept].weight == Approx(0.05));
    CHECK_THAT(result.message,
               Catch::Contains("trials at smaller weights got no closer") && !Catch::Contains("grid.range"));
  }
  SECTION("nothing closer than the starting table") {
    Synthetic synthetic;
    synthetic.start_delta = 2e-9;  // the trials reach 2.5e-3 ... 2.5e-9
    const TargetSearchResult result = synthetic.run(options);
    CHECK(result.kept == 0);
    CHECK_THAT(result.message, Catch::Contains("the starting table") && Catch::Contains("no trial got closer"));
  }
  SECTION("one trial is not a trend, and counts are in the right number") {
    options.trials = 1;
    Synthetic synthetic;
    const TargetSearchResult result = synthetic.run(options);
    CHECK_THAT(result.message, Catch::Contains("1 trial ") && Catch::Contains("one trial shows no trend"));
  }
}
