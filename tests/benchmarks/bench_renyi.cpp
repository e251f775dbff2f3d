// Benchmark of the Renyi objective and the preconditioned gradient of Gilani et al. (Alg. 3) in the Fig. 1
// setting: s = 1, sigma = 5, n = 10, delta = 1e-6, continuous, Delta = 0.05 (m = 20), N = 2000, r = 0.9999.
//
// Prints: the time of one objective + gradient and of one full line search (51 values) next to the yardstick,
// the plain per-term loop over every outcome and shift (reference_log_renyi_moment); then the time (one
// thread by default) for the PGD to bring gamma below a target, with the final gamma and alpha (paper: alpha
// about 12.58); for the Newton direction (ours) the time of its model and banded solve next to a dense solve of
// the same system, and the Newton run to the same target.
// Usage: bench_renyi [--threads N] [--target GAMMA] [--iterations K] [--direction steepest|lbfgs|newton]
//        [--compare yes]
#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench_timing.hpp"
#include "losses/renyi_objective.hpp"
#include "models/geometric_tail_family.hpp"
#include "train/preconditioned_gradient.hpp"

using namespace noiselearn;

namespace {

const char* argument(int argc, char** argv, const char* name, const char* fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = bench::threads_argument(argc, argv, 1);
  torch::set_num_threads(threads);
  const double target = std::atof(argument(argc, argv, "--target", "3.2"));
  const int64_t iterations = std::atoll(argument(argc, argv, "--iterations", "3000"));
  const PreconditionedDirection direction =
      parse_preconditioned_direction(argument(argc, argv, "--direction", "steepest"));

  const GeometricTailShape shape;  // continuous, N = 2000, r = 0.9999, Delta = 0.05
  const double sigma = 5.0;
  const std::vector<double> log_window = gaussian_initialisation(shape, sigma).log_probabilities;
  const torch::Tensor theta = torch::tensor(log_window, torch::kDouble);
  RenyiFamilyObjectiveOptions objective_options;  // m = 20, n = 10, delta = 1e-6
  objective_options.alpha = gaussian_optimal_alpha(sigma, objective_options.compositions, objective_options.delta);
  auto objective = std::make_shared<RenyiFamilyObjective>(shape.window, shape.ratio, objective_options);

  fmt::print("bench_renyi: Fig. 1 setting (N = 2000, m = 20, n = 10, delta = 1e-6), {} thread(s)\n", threads);
  const auto value_gradient = bench::time_of(3, 20, [&] { objective->value_and_gradient(theta); });
  const auto value_only = bench::time_of(3, 20, [&] { objective->value(theta); });
  const auto line_search = bench::time_of(1, 5, [&] {
    for (int k = 0; k <= 50; ++k) objective->value(theta);
  });
  const auto yardstick = bench::time_of(1, 5, [&] {
    double worst = -1e300;
    for (int64_t a = 1; a <= 20; ++a)
      worst = std::max(worst, reference_log_renyi_moment(log_window, shape.ratio, a, objective_options.alpha));
    if (worst == 0.123) std::puts("");
  });
  fmt::print("  objective + gradient (batched, autograd)  {:8.3f} ms (median {:.3f})\n", 1e3 * value_gradient.best,
             1e3 * value_gradient.median);
  fmt::print("  objective value (batched)                 {:8.3f} ms (median {:.3f})\n", 1e3 * value_only.best,
             1e3 * value_only.median);
  fmt::print("  full line search, 51 values               {:8.3f} ms (median {:.3f})\n", 1e3 * line_search.best,
             1e3 * line_search.median);
  fmt::print("  yardstick: per-term loop, one value       {:8.3f} ms (median {:.3f})\n", 1e3 * yardstick.best,
             1e3 * yardstick.median);

  // The Newton direction's cost: its model (per-shift gradients and the banded curvature) and one banded
  // factorisation with 23 right-hand sides, against a dense LAPACK solve of the same (grounded) matrix.
  const auto model_time = bench::time_of(1, 10, [&] { objective->newton_model(theta, {}); });
  MaxNewtonModel model = objective->newton_model(theta, {});
  SymmetricBandedMatrix grounded = model.curvature;
  for (int64_t i = 0; i <= shape.window; ++i)
    grounded.add(i, i, 1e-10 * model.curvature.largest_diagonal() + (i == 0 ? 1.0 : 0.0));
  std::vector<std::vector<double>> right_hand_sides = model.gradients;
  right_hand_sides.resize(23, std::vector<double>(static_cast<size_t>(shape.window + 1), 1.0));
  const auto banded_time = bench::time_of(1, 10, [&] {
    auto copy = right_hand_sides;
    if (!grounded.solve(copy)) std::puts("banded solve failed");
  });
  const auto dense_time = bench::time_of(1, 3, [&] {
    const int64_t n = shape.window + 1;
    torch::Tensor a = torch::zeros({n, n}, torch::kDouble);
    auto acc = a.accessor<double, 2>();
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = std::max<int64_t>(0, i - 20); j <= std::min(n - 1, i + 20); ++j) acc[i][j] = grounded.at(i, j);
    torch::Tensor b = torch::zeros({n, 23}, torch::kDouble);
    torch::linalg_solve(a, b);
  });
  fmt::print("  Newton model (gradients of 20 shifts, banded curvature)  {:8.3f} ms (median {:.3f})\n",
             1e3 * model_time.best, 1e3 * model_time.median);
  fmt::print("  banded Cholesky, n = 2001, bandwidth 20, 23 right sides  {:8.3f} ms (median {:.3f})\n",
             1e3 * banded_time.best, 1e3 * banded_time.median);
  fmt::print("  yardstick: dense LAPACK solve of the same system          {:8.3f} ms (median {:.3f})\n",
             1e3 * dense_time.best, 1e3 * dense_time.median);

  const auto run = [&](PreconditionedDirection dir, bool exhaustive, int halvings) {
    auto fresh = std::make_shared<RenyiFamilyObjective>(shape.window, shape.ratio, objective_options);
    std::vector<double> x = log_window;
    PreconditionedGradientOptions options;
    options.max_iterations = iterations;
    options.objective_target = target;
    options.direction = dir;
    options.exhaustive_line_search = exhaustive;
    options.line_search_halvings = halvings;
    options.history_every = 100;
    options.max_seconds = 600;
    options.outer_update_every = dir == PreconditionedDirection::kNewton ? 1 : 10;
    const std::vector<LinearConstraint> constraints = {
        {"normalisation", normalisation_coefficients(shape), 1.0},
        {"variance", cost_coefficients(shape, {CostKind::kSquare, 0.0}), sigma * sigma}};
    const PreconditionedGradientSummary summary =
        preconditioned_gradient_descent(x, constraints, renyi_family_objective(fresh), options);
    fmt::print(
        "  PGD {} ({} line search, {} halvings): gamma {:.6f} -> {:.6f}, alpha {:.4f}, {} iterations, {:.2f} s\n    "
        "{}\n",
        to_string(dir), exhaustive ? "exhaustive" : "bracketing", halvings, summary.initial_objective,
        summary.final_objective, fresh->alpha(), summary.iterations, summary.seconds, summary.termination);
  };
  fmt::print("time to gamma <= {} (Mironov conversion at the current alpha; Gaussian start: gamma(alpha0) = {:.6f}):\n",
             target, objective->value(theta));
  run(direction, false, 50);
  if (direction != PreconditionedDirection::kNewton) run(PreconditionedDirection::kNewton, false, 50);
  if (std::strcmp(argument(argc, argv, "--compare", "no"), "yes") == 0) {
    run(direction, true, 50);
    run(PreconditionedDirection::kSteepest, true, 10);
  }
  return 0;
}
