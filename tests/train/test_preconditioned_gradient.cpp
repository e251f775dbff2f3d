// The preconditioned projected gradient of Gilani et al. (Alg. 3, corrected): the constraints hold to 1e-12 at
// every iterate, the objective decreases monotonically, the guards stop on NaN keeping the last good point,
// and the line-search variants agree with the paper's exhaustive search.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "core/errors.hpp"
#include "models/geometric_tail_family.hpp"
#include "train/preconditioned_gradient.hpp"

using namespace noiselearn;

namespace {

// A small Fig.-1-like problem: continuous, sigma / s = 2, Delta = 0.25 (m = 4), N = 60, r = 0.95.
struct SmallProblem {
  GeometricTailShape shape;
  double sigma = 2.0;
  std::vector<LinearConstraint> constraints;
  std::vector<double> start;
  SmallProblem() {
    shape.window = 60;
    shape.ratio = 0.95;
    shape.bin_width = 0.25;
    constraints = {{"normalisation", normalisation_coefficients(shape), 1.0},
                   {"variance", cost_coefficients(shape, {CostKind::kSquare, 0.0}), sigma * sigma}};
    start = gaussian_initialisation(shape, sigma).log_probabilities;
  }
  std::shared_ptr<RenyiFamilyObjective> objective() const {
    RenyiFamilyObjectiveOptions options;
    options.max_shift = 4;
    options.compositions = 10;
    options.delta = 1e-6;
    options.alpha = gaussian_optimal_alpha(sigma, 10, 1e-6);
    return std::make_shared<RenyiFamilyObjective>(shape.window, shape.ratio, options);
  }
};

double relative_residual(const std::vector<double>& theta, const LinearConstraint& c) {
  std::vector<double> terms;
  for (size_t i = 0; i < theta.size(); ++i) terms.push_back(c.coefficients[i] * std::exp(theta[i]));
  return std::abs(compensated_sum(terms) - c.target) / c.target;
}

}  // namespace

TEST_CASE("impose_linear_constraints removes a perturbation of normalisation and variance to rounding", "[pgd]") {
  SmallProblem problem;
  std::vector<double> theta = problem.start;
  for (size_t i = 0; i < theta.size(); ++i) theta[i] += 1e-10 * std::sin(static_cast<double>(i));
  CHECK(relative_residual(theta, problem.constraints[0]) > 1e-12);
  CHECK(impose_linear_constraints(theta, problem.constraints) <= 1e-15);
  CHECK(relative_residual(theta, problem.constraints[0]) <= 1e-15);
  CHECK(relative_residual(theta, problem.constraints[1]) <= 1e-15);
}

TEST_CASE("PGD at fixed alpha: objective decreases monotonically, normalisation and variance hold to 1e-12 at every iterate", "[pgd]") {
  SmallProblem problem;
  for (PreconditionedDirection direction : {PreconditionedDirection::kSteepest, PreconditionedDirection::kLbfgs}) {
    auto objective = problem.objective();
    std::vector<double> theta = problem.start;
    PreconditionedGradientOptions options;
    options.max_iterations = 60;
    options.outer_update_every = 0;  // alpha fixed: one objective
    options.direction = direction;
    // checks every iterate through the objective callback itself: each evaluated point satisfies the constraints
    ConstrainedObjective checked = renyi_family_objective(objective);
    double worst_residual = 0.0;
    const auto base_value = checked.value;
    checked.value = [&](const torch::Tensor& x) {
      const torch::Tensor cpu = x.contiguous();
      const std::vector<double> v(cpu.data_ptr<double>(), cpu.data_ptr<double>() + cpu.numel());
      for (const auto& c : problem.constraints) worst_residual = std::max(worst_residual, relative_residual(v, c));
      return base_value(x);
    };
    const PreconditionedGradientSummary summary = preconditioned_gradient_descent(theta, problem.constraints, checked, options);
    INFO(to_string(direction) << "\n" << summary.report());
    REQUIRE(summary.history.size() >= 2);
    for (size_t k = 1; k < summary.history.size(); ++k) CHECK(summary.history[k].objective <= summary.history[k - 1].objective);
    for (const auto& record : summary.history) CHECK(record.constraint_residual <= 1e-12);
    CHECK(worst_residual <= 1e-12);
    CHECK(summary.max_constraint_residual <= 1e-12);
    CHECK(summary.final_objective < summary.initial_objective - 0.01);
    CHECK(objective->value(torch::tensor(theta, torch::kDouble)) == Approx(summary.final_objective).epsilon(1e-14));
    CHECK_FALSE(summary.stopped_by_guard);
  }
}

TEST_CASE("the bracketing line search finds the same steps as the exhaustive one (unimodal along the line)", "[pgd]") {
  SmallProblem problem;
  PreconditionedGradientSummary summaries[2];
  std::vector<double> thetas[2];
  for (int exhaustive = 0; exhaustive < 2; ++exhaustive) {
    thetas[exhaustive] = problem.start;
    PreconditionedGradientOptions options;
    options.max_iterations = 15;
    options.outer_update_every = 5;
    options.exhaustive_line_search = exhaustive == 1;
    summaries[exhaustive] = preconditioned_gradient_descent(thetas[exhaustive], problem.constraints,
                                                            renyi_family_objective(problem.objective()), options);
  }
  CHECK(summaries[0].final_objective == Approx(summaries[1].final_objective).epsilon(1e-12));
  CHECK(summaries[0].value_evaluations < summaries[1].value_evaluations);
  for (size_t k = 0; k < summaries[0].history.size(); ++k)
    CHECK(summaries[0].history[k].step == Approx(summaries[1].history[k].step).epsilon(1e-12));
}

TEST_CASE("alpha's Newton steps every T iterations lower gamma below the fixed-alpha run", "[pgd]") {
  SmallProblem problem;
  double finals[2];
  double alphas[2];
  for (int with_newton = 0; with_newton < 2; ++with_newton) {
    auto objective = problem.objective();
    std::vector<double> theta = problem.start;
    PreconditionedGradientOptions options;
    options.max_iterations = 80;
    options.outer_update_every = with_newton ? 10 : 0;
    const PreconditionedGradientSummary summary =
        preconditioned_gradient_descent(theta, problem.constraints, renyi_family_objective(objective), options);
    finals[with_newton] = summary.final_objective;
    alphas[with_newton] = objective->alpha();
    CHECK(summary.outer_updates == (with_newton ? 8 : 0));
  }
  CHECK(alphas[1] != alphas[0]);
  CHECK(finals[1] < finals[0]);
}

TEST_CASE("NaN guard: a NaN gradient stops the run, names the iteration and keeps the last good point", "[pgd]") {
  SmallProblem problem;
  auto objective = problem.objective();
  ConstrainedObjective broken = renyi_family_objective(objective);
  int calls = 0;
  std::vector<double> last_good;
  const auto base = broken.value_and_gradient;
  broken.value_and_gradient = [&](const torch::Tensor& x) {
    ObjectiveEvaluation e = base(x);
    if (++calls == 4) e.gradient[3] = std::numeric_limits<double>::quiet_NaN();
    const torch::Tensor cpu = x.contiguous();
    last_good.assign(cpu.data_ptr<double>(), cpu.data_ptr<double>() + cpu.numel());
    return e;
  };
  std::vector<double> theta = problem.start;
  PreconditionedGradientOptions options;
  options.max_iterations = 20;
  const PreconditionedGradientSummary summary = preconditioned_gradient_descent(theta, problem.constraints, broken, options);
  CHECK(summary.stopped_by_guard);
  CHECK_THAT(summary.termination, Catch::Contains("gradient") && Catch::Contains("iteration 4"));
  CHECK(theta == last_good);
  CHECK(std::isfinite(summary.final_objective));
  CHECK_THAT(summary.report(), Catch::Contains("termination"));
}

TEST_CASE("PGD refuses an infeasible start and bad options, naming them", "[pgd]") {
  SmallProblem problem;
  std::vector<double> theta = problem.start;
  theta[0] += 0.1;
  CHECK_THROWS_WITH(preconditioned_gradient_descent(theta, problem.constraints, renyi_family_objective(problem.objective())),
                    Catch::Contains("violates the constraints"));
  PreconditionedGradientOptions options;
  options.line_search_halvings = 0;
  CHECK_THROWS_WITH(options.validate(), Catch::Contains("optimiser.line_search_halvings"));
  CHECK(parse_preconditioned_direction("lbfgs") == PreconditionedDirection::kLbfgs);
  CHECK_THROWS_AS(parse_preconditioned_direction("adam"), InputError);
}
