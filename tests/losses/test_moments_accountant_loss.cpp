// The Extended Moments Accountant loss l^MA (Sommer et al., Prop. 17).
#include <catch2/catch.hpp>

#include <cmath>

#include "accounting/moments_accountant.hpp"
#include "core/baselines.hpp"
#include "core/dominating_pair.hpp"
#include "gradient_check.hpp"
#include "losses/moments_accountant_loss.hpp"
#include "models/noise_model.hpp"

using namespace noiselearn;

namespace {

torch::Tensor random_log_table(int64_t size, uint64_t seed) {
  torch::manual_seed(seed);
  return torch::log_softmax(torch::randn({size}, torch::kDouble), 0);
}

}  // namespace

TEST_CASE("MA loss equals the accountant's formula at its lambda, both directions", "[moments-accountant-loss]") {
  // Against the (independent, plain C++) moments accountant of src/accounting: the same Gamma_lambda and omega.
  const NoiseTable table = truncated_gaussian_table(Grid::symmetric(6.0, 0.05), 1.5, 4.0);
  const torch::Tensor log_p = log_probabilities_of(table);
  const DifferentiablePair pair = additive_pair(log_p, 20);
  const DominatingPair reference = additive_shift_pair(table, 20);
  MomentsAccountantLossOptions options;
  options.epsilon = 8.0;  // n Gamma - lambda eps < 0: the exp branch
  options.compositions = 8;
  options.initial_lambda_sq = 1.3;
  MomentsAccountantLoss loss(options);
  const double lambda = loss.lambda(0);
  CHECK(lambda == Approx(1.3 * 1.3 + 1e-4));
  for (int direction : {0, 1}) {
    const auto& first = direction == 0 ? reference.a : reference.b;
    const auto& second = direction == 0 ? reference.b : reference.a;
    double omega = 0.0;
    for (size_t i = 0; i < first.size(); ++i)
      if (first[i] > 0 && second[i] == 0) omega += first[i];
    const double exponent = 8 * moments_log_gamma(first, second, lambda) - lambda * 8.0;
    REQUIRE(exponent < 0.0);
    const double expected = -std::expm1(8 * std::log1p(-omega)) + std::exp(exponent);
    const double value =
        loss.direction_delta(direction == 0 ? pair.forward() : pair.backward(), direction).item<double>();
    CHECK(value == Approx(expected).epsilon(1e-12));
    // Above 0 the moment term continues linearly (overflow guard): 1 + t.
    MomentsAccountantLossOptions loose = options;
    loose.epsilon = 1.0;
    MomentsAccountantLoss guarded(loose);
    const double t = 8 * moments_log_gamma(first, second, lambda) - lambda * 1.0;
    REQUIRE(t > 0.0);
    CHECK(guarded.direction_delta(direction == 0 ? pair.forward() : pair.backward(), direction).item<double>() ==
          Approx(-std::expm1(8 * std::log1p(-omega)) + 1.0 + t).epsilon(1e-12));
  }
}

TEST_CASE("MA loss gradients match finite differences (noise and lambda)", "[moments-accountant-loss]") {
  const torch::Tensor log_p = random_log_table(9, 3);
  MomentsAccountantLossOptions options;
  options.epsilon = 0.5;
  options.compositions = 3;
  options.initial_lambda_sq = 0.8;
  MomentsAccountantLoss loss(options);
  auto value = [&](const torch::Tensor& lp) {
    torch::NoGradGuard guard;
    return loss.delta(additive_pair(lp, 2), DirectionCombination::kSum).item<double>();
  };
  torch::Tensor leaf = log_p.clone().requires_grad_(true);
  loss.delta(additive_pair(leaf, 2), DirectionCombination::kSum).backward();
  const torch::Tensor numeric = testing::finite_difference_gradient(value, log_p, 1e-6);
  CHECK(torch::allclose(leaf.grad(), numeric, 1e-6, 1e-9));
  // Lambda: d/d lambda_sq through lambda = lambda_sq^2 + 1e-4.
  auto parameters = loss.named_parameters();
  torch::Tensor lambda_sq = parameters["lambda_sq_forward"];
  const double original = lambda_sq.item<double>();
  const double analytic = lambda_sq.grad().item<double>();
  auto at = [&](double s) {
    torch::NoGradGuard guard;
    lambda_sq.fill_(s);
    return loss.delta(additive_pair(log_p, 2), DirectionCombination::kSum).item<double>();
  };
  const double numeric_lambda = (at(original + 1e-6) - at(original - 1e-6)) / 2e-6;
  at(original);
  CHECK(analytic == Approx(numeric_lambda).epsilon(1e-6));
}

TEST_CASE("MA loss stays finite where exp would overflow", "[moments-accountant-loss]") {
  const torch::Tensor log_p = random_log_table(50, 5) * 30.0;  // very peaked: huge moments
  MomentsAccountantLossOptions options;
  options.compositions = 1000;
  options.initial_lambda_sq = 10.0;
  MomentsAccountantLoss loss(options);
  torch::Tensor leaf = torch::log_softmax(log_p, 0).detach().requires_grad_(true);
  const torch::Tensor value = loss.delta(additive_pair(leaf, 1), DirectionCombination::kMax);
  CHECK(std::isfinite(value.item<double>()));
  value.backward();
  CHECK(torch::isfinite(leaf.grad()).all().item<bool>());
}
