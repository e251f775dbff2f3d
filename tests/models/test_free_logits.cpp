// Free logits: exact reproduction of tables (log p = log of the table where p > 0, outside the support where
// p = 0), the support kind, symmetry bit for bit for the symmetric variant, and gradients that are finite and
// never reach outside the support.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "core/baselines.hpp"
#include "core/errors.hpp"
#include "models/free_logits.hpp"
#include "models/model_checks.hpp"

using namespace noiselearn;
using namespace noiselearn::test;

namespace {

// A random table without structure: p_i ∝ u_i³ (u uniform), normalised, with zeros where the distance to
// the middle index is 2 mod 5 (a support symmetric about the middle, probabilities not).
NoiseTable random_general_table(const Grid& grid, uint64_t seed) {
  const torch::Tensor u = uniform(grid.size, 0.0, 1.0, seed);
  std::vector<double> p(static_cast<size_t>(grid.size));
  for (int64_t i = 0; i < grid.size; ++i)
    p[static_cast<size_t>(i)] = std::abs(2 * i - (grid.size - 1)) % 10 == 4 ? 0.0 : std::pow(u[i].item<double>(), 3);
  const double total = compensated_sum(p);
  for (double& v : p) v /= total;
  return NoiseTable(grid, p);
}

}  // namespace

TEST_CASE("free logits reproduce any table exactly", "[models][free-logits]") {
  const Grid grid = Grid::symmetric(10.0, 0.05);  // 401 points
  SECTION("truncated Gaussian: the zeros beyond the range become outside the support") {
    const NoiseTable table = truncated_gaussian_table(grid, 2.0, 6.0);
    auto model = FreeLogits::from_table(table);
    require_reproduces(*model, table.probabilities());
    require_distribution(*model);
    CHECK(model->support_kind() == SupportKind::kGeneral);
    CHECK(model->logits().size(0) == 241);  // |x| <= 6
  }
  SECTION("Gaussian with tails down to 1e-87") {
    const NoiseTable table = gaussian_table(grid, 0.5);
    auto model = FreeLogits::from_table(table);
    require_reproduces(*model, table.probabilities());
    CHECK(model->logits().size(0) == grid.size);
  }
  SECTION("a random general table with zeros") {
    const NoiseTable table = random_general_table(grid, 17);
    REQUIRE(table.support_kind() == SupportKind::kGeneral);
    auto model = FreeLogits::from_table(table);
    require_reproduces(*model, table.probabilities());
    require_distribution(*model);
    const NoiseTable round_trip = table_of(*model);
    for (int64_t i = 0; i < grid.size; ++i) CHECK(round_trip.p(i) == Approx(table.p(i)).epsilon(1e-12).margin(0));
  }
  SECTION("a one-sided table gives a one-sided model") {
    const Grid positive = Grid::spanning(0.0, 5.0, 0.1);
    const NoiseTable table = random_general_table(positive, 23);
    auto model = FreeLogits::from_table(table);
    require_reproduces(*model, table.probabilities());
    CHECK(model->support_kind() == SupportKind::kOneSided);
    CHECK(table_of(*model).support_kind() == SupportKind::kOneSided);
  }
}

TEST_CASE("symmetric free logits: one logit per point of the half, mirrored", "[models][free-logits]") {
  const Grid grid = Grid::symmetric(10.0, 0.05);
  const FreeLogitsOptions symmetric{true};
  SECTION("a symmetric table is reproduced exactly") {
    const NoiseTable table = truncated_gaussian_table(grid, 2.0, 6.0);
    auto model = FreeLogits::from_table(table, symmetric);
    require_reproduces(*model, table.probabilities());
    require_distribution(*model);
    CHECK(model->support_kind() == SupportKind::kSymmetric);
    CHECK(model->logits().size(0) == 121);  // -6 <= x <= 0
  }
  SECTION("an asymmetric table with a symmetric support starts from its mirror average") {
    const NoiseTable table = random_general_table(grid, 29);
    auto model = FreeLogits::from_table(table, symmetric);
    std::vector<double> average(static_cast<size_t>(grid.size));
    for (int64_t i = 0; i < grid.size; ++i)
      average[static_cast<size_t>(i)] = 0.5 * (table.p(i) + table.p(grid.size - 1 - i));
    require_reproduces(*model, average);
    CHECK(torch::equal(log_probabilities_without_grad(*model), log_probabilities_without_grad(*model).flip(0)));
  }
  SECTION("refused: a support that is not symmetric, a grid that is not symmetric") {
    std::vector<double> p(static_cast<size_t>(grid.size), 0.0);
    p[100] = 0.5;
    p[250] = 0.5;
    CHECK_THROWS_AS(FreeLogits::from_table(NoiseTable(grid, p), symmetric), InputError);
    const Grid lopsided = Grid::spanning(-1.0, 3.0, 0.5);
    CHECK_THROWS_AS(FreeLogits(lopsided, symmetric), InputError);
    const NoiseTable flat(lopsided, std::vector<double>(static_cast<size_t>(lopsided.size), 1.0 / lopsided.size));
    CHECK_THROWS_AS(FreeLogits::from_table(flat, symmetric), InputError);
    CHECK_NOTHROW(FreeLogits(lopsided));
  }
  SECTION("an even symmetric grid (no point at 0) mirrors the two central points") {
    const Grid even{-1.5, 1.0, 4};
    REQUIRE(even.is_symmetric());
    FreeLogits model(even, symmetric);
    {
      torch::NoGradGuard no_grad;
      model.logits().copy_(torch::tensor({-1.0, 2.0}, torch::kDouble));
    }
    const torch::Tensor log_p = log_probabilities_without_grad(model);
    CHECK(torch::equal(log_p, log_p.flip(0)));
    CHECK(log_p[1].item<double>() - log_p[0].item<double>() == Approx(3.0).epsilon(1e-15));
  }
}

TEST_CASE("free logits: default, invariants under random parameters, gradients", "[models][free-logits]") {
  const Grid grid = Grid::symmetric(5.0, 0.1);  // 101 points
  SECTION("the default is uniform on the grid") {
    FreeLogits model(grid);
    require_reproduces(model, std::vector<double>(static_cast<size_t>(grid.size), 1.0 / grid.size));
    CHECK(model.support_mask().all().item<bool>());
    CHECK(model.support_kind() == SupportKind::kGeneral);
    CHECK(FreeLogits(Grid::spanning(0.0, 1.0, 0.1)).support_kind() == SupportKind::kOneSided);
  }
  const bool symmetric = GENERATE(false, true);
  CAPTURE(symmetric);
  auto model = FreeLogits::from_table(truncated_gaussian_table(grid, 1.0, 3.0), FreeLogitsOptions{symmetric});
  const torch::Tensor outside = model->support_mask().logical_not();
  REQUIRE(outside.sum().item<int64_t>() == 40);
  for (uint64_t seed : {1, 2, 3}) {
    {
      torch::NoGradGuard no_grad;
      model->logits().copy_(uniform(model->logits().size(0), -300.0, 300.0, seed));
    }
    require_distribution(*model);
    if (symmetric)
      CHECK(torch::equal(log_probabilities_without_grad(*model), log_probabilities_without_grad(*model).flip(0)));
    require_finite_gradients(*model, seed);
    // The loss reaches every point; the parameters are only the support's, so p stays 0 outside it.
    CHECK(model->parameters().size() == 1);
    CHECK(model->logits().grad().abs().sum().item<double>() > 0.0);
    CHECK((log_probabilities_without_grad(*model).masked_select(outside) == -INFINITY).all().item<bool>());
  }
}
