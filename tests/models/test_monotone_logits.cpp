// Monotone logits: exact reproduction of symmetric tables that are non-increasing away from 0 (including
// flat steps), the projection of other tables (mirror average, then running minimum outwards), the refusal of
// supports that are not a symmetric interval, the invariants bit for bit under random parameters, finite
// gradients, and the default Gaussian-shaped profile.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/baselines.hpp"
#include "core/errors.hpp"
#include "models/model_checks.hpp"
#include "models/monotone_logits.hpp"

using namespace noiselearn;
using namespace noiselearn::test;

namespace {

// The projection the model documents, computed independently on probabilities: average mirror pairs, take the
// running minimum from the centre outwards, normalise.
std::vector<double> projected(const NoiseTable& table) {
  const int64_t n = table.size(), centre = n / 2;
  std::vector<double> p(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) p[static_cast<size_t>(i)] = 0.5 * (table.p(i) + table.p(n - 1 - i));
  for (int64_t i = centre + 1; i < n; ++i) {
    p[static_cast<size_t>(i)] = std::min(p[static_cast<size_t>(i)], p[static_cast<size_t>(i - 1)]);
    p[static_cast<size_t>(n - 1 - i)] = p[static_cast<size_t>(i)];
  }
  const double total = compensated_sum(p);
  for (double& v : p) v /= total;
  return p;
}

}  // namespace

TEST_CASE("monotone logits reproduce symmetric monotone tables exactly", "[models][monotone-logits]") {
  const Grid grid = Grid::symmetric(10.0, 0.05);  // 401 points
  const std::vector<NoiseTable> tables = {
      truncated_gaussian_table(grid, 2.0, 6.0),  // zeros beyond |x| = 6: outside the support
      gaussian_table(grid, 0.5),                 // tails down to 1e-87
      laplace_table(grid, 1.0),
      discrete_laplace_table(grid, 0.3),
      uniform_table(grid, 4.0),                   // every step flat
      staircase_table(grid, 1.0, 1.0, 0.3, 8.0),  // flat runs and jumps
  };
  for (const NoiseTable& table : tables) {
    INFO(table.provenance().source);
    REQUIRE(table.is_symmetric_monotone());
    auto model = MonotoneLogits::from_table(table);
    require_reproduces(*model, table.probabilities());
    require_distribution(*model);
    require_symmetric_monotone(*model);
    require_finite_gradients(*model, 5);
  }
}

TEST_CASE("monotone logits start other tables from their projection", "[models][monotone-logits]") {
  const Grid grid = Grid::symmetric(8.0, 0.1);  // 161 points
  SECTION("a bimodal symmetric table: running minimum outwards, renormalised") {
    std::vector<double> p(static_cast<size_t>(grid.size));
    for (int64_t i = 0; i < grid.size; ++i) {
      const double x = grid.x(i);
      p[static_cast<size_t>(i)] = std::exp(-0.5 * (x - 3) * (x - 3)) + std::exp(-0.5 * (x + 3) * (x + 3));
    }
    const double total = compensated_sum(p);
    for (double& v : p) v /= total;
    const NoiseTable table(grid, p);
    REQUIRE_FALSE(table.is_symmetric_monotone());
    auto model = MonotoneLogits::from_table(table);
    require_reproduces(*model, projected(table));
    require_symmetric_monotone(*model);
  }
  SECTION("an asymmetric, non-monotone table with a symmetric support") {
    const torch::Tensor u = uniform(grid.size, 0.1, 1.0, 31);
    std::vector<double> p(u.data_ptr<double>(), u.data_ptr<double>() + grid.size);
    const double total = compensated_sum(p);
    for (double& v : p) v /= total;
    const NoiseTable table(grid, p);
    auto model = MonotoneLogits::from_table(table);
    require_reproduces(*model, projected(table));
    require_symmetric_monotone(*model);
  }
  SECTION("refused: supports that are not a symmetric interval around 0, grids that are not symmetric") {
    std::vector<double> gap = truncated_gaussian_table(grid, 2.0, 5.0).probabilities();
    gap[70] = gap[90] = 0.0;  // x = ±1: zeros inside the support
    double total = compensated_sum(gap);
    for (double& v : gap) v /= total;
    CHECK_THROWS_AS(MonotoneLogits::from_table(NoiseTable(grid, gap)), InputError);

    std::vector<double> hole = truncated_gaussian_table(grid, 2.0, 5.0).probabilities();
    hole[80] = 0.0;  // the centre
    total = compensated_sum(hole);
    for (double& v : hole) v /= total;
    CHECK_THROWS_AS(MonotoneLogits::from_table(NoiseTable(grid, hole)), InputError);

    std::vector<double> lopsided_support = truncated_gaussian_table(grid, 2.0, 5.0).probabilities();
    lopsided_support[10] = 1e-3;  // x = -7 inside, x = 7 outside
    total = compensated_sum(lopsided_support);
    for (double& v : lopsided_support) v /= total;
    CHECK_THROWS_AS(MonotoneLogits::from_table(NoiseTable(grid, lopsided_support)), InputError);

    const Grid lopsided = Grid::spanning(-1.0, 3.0, 0.5);
    CHECK_THROWS_AS(MonotoneLogits(lopsided), InputError);
    const NoiseTable flat(lopsided, std::vector<double>(static_cast<size_t>(lopsided.size), 1.0 / lopsided.size));
    CHECK_THROWS_AS(MonotoneLogits::from_table(flat), InputError);
  }
}

TEST_CASE("monotone logits: invariants bit for bit under random parameters", "[models][monotone-logits]") {
  const Grid grid = GENERATE(Grid::symmetric(5.0, 0.1), Grid{-2.5, 1.0, 6});  // odd, and even (no point at 0)
  auto model = std::make_shared<MonotoneLogits>(grid);
  const int64_t steps = model->decrements().size(0);
  REQUIRE(steps >= 1);
  for (uint64_t seed : {1, 2, 3}) {
    {
      torch::NoGradGuard no_grad;
      model->log_centre().fill_(uniform(1, -50.0, 50.0, seed).item<double>());
      // From flat (e^{-800} underflows in softplus) to steep; the steep steps push the tail below 1e-300.
      torch::Tensor d = uniform(steps, -20.0, 20.0, seed + 10);
      d[0] = -800.0;
      d[-1] = 60.0;
      model->decrements().copy_(d);
    }
    require_distribution(*model);
    require_symmetric_monotone(*model);
    require_finite_gradients(*model, seed);
    CHECK(model->decrements().grad().abs().sum().item<double>() > 0.0);
  }
}

TEST_CASE("monotone logits: the default profile is Gaussian-shaped", "[models][monotone-logits]") {
  const Grid grid = Grid::symmetric(6.0, 0.1);
  const double sigma = GENERATE(0.0, 1.5);  // 0: the default, a third of the half-width
  MonotoneLogitsOptions options;
  if (sigma > 0.0) options.initial_sigma = sigma;
  MonotoneLogits model(grid, options);
  const double s = sigma > 0.0 ? sigma : 2.0;
  std::vector<double> expected(static_cast<size_t>(grid.size));
  for (int64_t i = 0; i < grid.size; ++i)
    expected[static_cast<size_t>(i)] = std::exp(-grid.x(i) * grid.x(i) / (2 * s * s));
  const double total = compensated_sum(expected);
  for (double& v : expected) v /= total;
  require_reproduces(model, expected);
  require_symmetric_monotone(model);
  CHECK(model.support_mask().all().item<bool>());
  CHECK(model.support_kind() == SupportKind::kSymmetric);
  CHECK(model.parameters().size() == 2);

  options.initial_sigma = -1.0;
  CHECK_THROWS_AS(MonotoneLogits(grid, options), InputError);
}
