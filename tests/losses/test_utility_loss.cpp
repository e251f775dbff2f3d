// Differentiable utility losses against the table utilities of core/utility.
#include <catch2/catch.hpp>

#include "core/baselines.hpp"
#include "core/utility.hpp"
#include "losses/utility_loss.hpp"
#include "models/noise_model.hpp"

using namespace noiselearn;

TEST_CASE("utility losses equal the table utilities", "[utility-loss]") {
  const NoiseTable table = truncated_laplace_table(Grid::symmetric(10.0, 0.01), 2.0, 8.0);
  const torch::Tensor log_p = log_probabilities_of(table);
  UtilitySpecification options;
  options.kind = UtilityKind::kL1;
  CHECK(utility_loss(log_p, table.grid(), options).item<double>() == Approx(l1_utility(table)).epsilon(1e-12));
  options.kind = UtilityKind::kL2;
  CHECK(utility_loss(log_p, table.grid(), options).item<double>() == Approx(l2_utility(table)).epsilon(1e-12));
  options.kind = UtilityKind::kSecondMoment;
  CHECK(utility_loss(log_p, table.grid(), options).item<double>() == Approx(second_moment(table)).epsilon(1e-12));
  options.kind = UtilityKind::kTailProbability;
  options.tail_threshold = 3.0;
  CHECK(utility_loss(log_p, table.grid(), options).item<double>() ==
        Approx(tail_probability(table, 3.0)).epsilon(1e-12));
}

TEST_CASE("utility loss gradient: d L1 / d log p_i = |x_i| p_i", "[utility-loss]") {
  const NoiseTable table = gaussian_table(Grid::symmetric(5.0, 0.5), 1.0);
  torch::Tensor log_p = log_probabilities_of(table).requires_grad_(true);
  UtilitySpecification options;
  utility_loss(log_p, table.grid(), options).backward();
  for (int64_t i = 0; i < table.size(); ++i)
    CHECK(log_p.grad()[i].item<double>() == Approx(std::abs(table.x(i)) * table.p(i)).epsilon(1e-12).margin(1e-300));
}
