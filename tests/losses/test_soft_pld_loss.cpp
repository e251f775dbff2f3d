// The soft PLD delta: its value is the certified accountant's quantity (within discretisation), with true
// gradients.
#include <catch2/catch.hpp>

#include <cmath>

#include "accounting/pair_accountant.hpp"
#include "core/baselines.hpp"
#include "gradient_check.hpp"
#include "losses/soft_pld_loss.hpp"
#include "models/noise_model.hpp"

using namespace noiselearn;

TEST_CASE("soft PLD delta agrees with the certified accountant", "[soft-pld]") {
  struct Case {
    NoiseTable table;
    int64_t shift;
    int64_t n;
    double epsilon;
  };
  const Grid grid = Grid::symmetric(60.0, 0.05);
  for (const Case& c :
       {Case{gaussian_table(grid, 4.0), 20, 1, 0.3}, Case{gaussian_table(grid, 4.0), 20, 16, 1.0},
        Case{truncated_gaussian_table(grid, 6.0, 20.0), 20, 8, 0.5}, Case{laplace_table(grid, 3.0), 20, 128, 2.0}}) {
    SoftPldLossOptions options;
    options.epsilon = c.epsilon;
    options.compositions = c.n;
    options.loss_step = 1e-4;
    SoftPldLoss loss(options);
    const double soft =
        loss.delta(additive_pair(log_probabilities_of(c.table), c.shift), DirectionCombination::kMax).item<double>();
    PairSpecification specification;
    specification.sensitivity = static_cast<double>(c.shift) * grid.step;
    const PairBounds bounds = account(make_pair_family(c.table, specification), c.n, {});
    INFO("n " << c.n << " eps " << c.epsilon << " soft " << soft << " certified [" << bounds.delta_lower(c.epsilon)
              << ", " << bounds.delta_upper(c.epsilon) << "]");
    // Linear splitting keeps mass and mean loss; its error is O(step^2) per release like the certified
    // bounds': it must fall within a relative 1e-4 of the certified bracket.
    CHECK(soft >= bounds.delta_lower(c.epsilon) * (1 - 1e-4));
    CHECK(soft <= bounds.delta_upper(c.epsilon) * (1 + 1e-4));
  }
}

TEST_CASE("soft PLD gradients match finite differences", "[soft-pld]") {
  torch::manual_seed(11);
  const torch::Tensor log_p = torch::log_softmax(torch::randn({12}, torch::kDouble), 0);
  SoftPldLossOptions options;
  options.epsilon = 0.4;
  options.compositions = 5;
  options.loss_step = 1e-3;
  options.tail_mass = 0.0;
  SoftPldLoss loss(options);
  auto value = [&](const torch::Tensor& lp) {
    torch::NoGradGuard guard;
    return loss.delta(additive_pair(lp, 3), DirectionCombination::kSum).item<double>();
  };
  torch::Tensor leaf = log_p.clone().requires_grad_(true);
  loss.delta(additive_pair(leaf, 3), DirectionCombination::kSum).backward();
  // The function is smooth between grid crossings; a step of 1e-7 in log p moves a loss by 1e-7 << the
  // grid step, so central differences are exact to O(h^2).
  const torch::Tensor numeric = testing::finite_difference_gradient(value, log_p, 1e-7);
  INFO("autograd " << leaf.grad() << "\nnumeric " << numeric);
  CHECK(torch::allclose(leaf.grad(), numeric, 1e-5, 1e-9));
}

TEST_CASE("soft PLD pays distinguishing events in full", "[soft-pld]") {
  // A table truncated to 5 cells with shift 2: omega = p0 + p1 for A||B.
  const torch::Tensor log_p = torch::log(torch::tensor({0.1, 0.2, 0.4, 0.2, 0.1}, torch::kDouble));
  SoftPldLossOptions options;
  options.epsilon = 100.0;  // above every finite loss: delta is the composed infinity mass
  options.compositions = 7;
  SoftPldLoss loss(options);
  const double value = loss.direction_delta(additive_pair(log_p, 2).forward(), 0).item<double>();
  CHECK(value == Approx(1.0 - std::pow(1.0 - 0.3, 7)).epsilon(1e-12));
}
