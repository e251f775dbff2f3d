// The sigmoid stack of Sommer et al., eq. (4): the fast exact evaluation against the direct (H × K) matrix,
// values and gradients, on the paper's initialisation and on adversarial centre layouts; the invariants of
// the model (normalised, exactly symmetric, non-increasing away from 0); the initialisation of section 3.3.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "core/errors.hpp"
#include "models/model_checks.hpp"
#include "models/sigmoid_stack.hpp"
#include "models/sigmoid_stack_evaluation.hpp"
#include "models/symmetric_half.hpp"

using namespace noiselearn;
using noiselearn::test::uniform;

namespace {

std::shared_ptr<SigmoidStack> make_stack(const Grid& grid, int64_t sigmoids, double slope, uint64_t seed = 7) {
  SigmoidStackOptions options;
  options.sigmoids = sigmoids;
  options.slope = slope;
  options.seed = seed;
  return std::make_shared<SigmoidStack>(grid, options);
}

void set_parameters(SigmoidStack& model, double a, const torch::Tensor& b, const torch::Tensor& f) {
  torch::NoGradGuard no_grad;
  model.A().fill_(a);
  model.B().copy_(b);
  model.F().copy_(f);
}

struct Gradients {
  torch::Tensor a, b, f;
};

Gradients gradients_of(SigmoidStack& model, const std::function<torch::Tensor()>& loss) {
  model.zero_grad();
  loss().backward();
  return {model.A().grad().clone(), model.B().grad().clone(), model.F().grad().clone()};
}

double max_abs(const torch::Tensor& t) { return t.abs().max().item<double>(); }

// log f on the non-positive half, on the same x as the model.
torch::Tensor log_half_profile(SigmoidStack& model, bool fast) {
  const Grid& grid = model.grid();
  const Grid half{grid.origin, grid.step, grid.size - grid.size / 2};
  const double slope = model.options().slope;
  return fast ? sigmoid_stack_log_profile_fast(half, model.A(), model.B(), model.F(), slope)
              : sigmoid_stack_log_profile_direct(half, model.A(), model.B(), model.F(), slope);
}

// |fast - direct| <= 1e-12 scale + bound, component by component, for the gradients with respect to A, B, F.
void require_gradients_match(const Gradients& fast, const Gradients& direct, const Gradients& scale,
                             const Gradients& bound) {
  const std::vector<std::tuple<const char*, torch::Tensor, torch::Tensor, torch::Tensor, torch::Tensor>> groups = {
      {"A", fast.a.reshape(-1), direct.a.reshape(-1), scale.a.reshape(-1), bound.a.reshape(-1)},
      {"B", fast.b, direct.b, scale.b, bound.b},
      {"F", fast.f, direct.f, scale.f, bound.f}};
  for (const auto& [name, g_fast, g_direct, g_scale, g_bound] : groups) {
    INFO("gradient with respect to " << name);
    REQUIRE(torch::isfinite(g_fast).all().item<bool>());
    REQUIRE(torch::isfinite(g_direct).all().item<bool>());
    // 1e-300: below the normal range (2.2e-308) a product of derivatives has no relative precision left.
    const torch::Tensor error = (g_fast - g_direct).abs(), tolerance = 1e-12 * g_scale + g_bound + 1e-300;
    const int64_t worst = (error - tolerance).argmax().item<int64_t>();
    INFO(fmt::format("worst component {}: |fast - direct| = {:.3e}, tolerance {:.3e}, direct {:.17g}", worst,
                     error[worst].item<double>(), tolerance[worst].item<double>(), g_direct[worst].item<double>()));
    CHECK((error <= tolerance).all().item<bool>());
  }
}

// The fast evaluation equals the direct one to float64 rounding.
//  1. Values: |log p_fast - log p_direct| <= 1e-12 max(1, |log p_direct|): 1e-12 relative in p, or in log p
//     where |log p| > 1 (there the direct value itself carries |log p| * 1e-16 of rounding).
//  2. Gradients of the profile, L = Σ_i w_i log f_i with w_i > 0: every term d log f_i / dθ has the sign of
//     θ (A, B) or is negative (F), so L sums terms of one sign and is computed to relative precision; the
//     fast gradient must agree component-wise to 1e-12 relative. The only other difference is the sigmoids
//     the fast path treats as saturated or as a pure exponential: for A and B their relative error is
//     e^{-T}; for F_j a saturated sigmoid's derivative C B_j² σ(1 - σ) / f_i < C e^{-T} is dropped, so
//     dL/dF_j may differ by Σ_i w_i C e^{-T} absolutely.
//  3. Gradients of L = Σ_i w_i log p_i, w_i of both signs: dL/dθ = Σ_i w_i d log f_i/dθ - Σ_i w_i E_p[d log f/dθ]
//     can cancel to nothing (log p is invariant to scaling all B_j and A, and nearly to translating all
//     centres), leaving rounding noise of the size of the terms. The comparison is component-wise against
//     scale = |d/dθ Σ_i |w_i| log f_i| + |Σ_i w_i| |d/dθ logsumexp(log f)| (the sum of the terms' magnitudes,
//     by the sign argument of 2), plus the saturated-sigmoid bound 2 Σ_i |w_i| C e^{-T}.
// `evaluate` is forward_fast, or log_probabilities (the fused evaluation, or forward_fast where the fused one does
// not apply); the profile section 2 exists for forward_fast only (the fused function returns log p).
void require_matches_direct(SigmoidStack& model, const std::string& name,
                            const std::function<torch::Tensor()>& evaluate, bool profile) {
  INFO("evaluation: " << name);
  const int64_t E = model.grid().size, H = E - E / 2;
  const double c_e_t = model.options().slope * std::exp(-kSigmoidSaturation);
  {
    torch::NoGradGuard no_grad;
    const torch::Tensor fast = evaluate(), direct = model.forward_direct();
    REQUIRE(torch::isfinite(direct).all().item<bool>());
    const double error = max_abs((fast - direct) / direct.abs().clamp_min(1.0));
    INFO(fmt::format("largest |log p_fast - log p_direct| / max(1, |log p_direct|) = {:.3e}", error));
    CHECK(error <= 1e-12);
  }
  if (profile) {
    INFO("profile log f, positive weights");
    const torch::Tensor w = uniform(H, 0.5, 1.0, 98);
    const auto loss = [&](bool fast) { return [&, fast] { return (w * log_half_profile(model, fast)).sum(); }; };
    const Gradients fast = gradients_of(model, loss(true)), direct = gradients_of(model, loss(false));
    const double f_bound = w.sum().item<double>() * c_e_t;
    const Gradients bound{torch::zeros_like(direct.a), torch::zeros_like(direct.b),
                          torch::full_like(direct.f, f_bound)};
    require_gradients_match(fast, direct, {direct.a.abs(), direct.b.abs(), direct.f.abs()}, bound);
  }
  {
    INFO("normalised log p, weights of both signs");
    const torch::Tensor w = uniform(E, -1.0, 1.0, 99);
    const Gradients fast = gradients_of(model, [&] { return (w * evaluate()).sum(); });
    const Gradients direct = gradients_of(model, [&] { return (w * model.forward_direct()).sum(); });
    const auto full_profile = [&] { return mirror_half(log_half_profile(model, false), model.grid()); };
    const Gradients terms = gradients_of(model, [&] { return (w.abs() * full_profile()).sum(); });
    const Gradients normaliser = gradients_of(model, [&] { return torch::logsumexp(full_profile(), 0); });
    const double total_weight = std::abs(w.sum().item<double>());
    const Gradients scale{terms.a.abs() + total_weight * normaliser.a.abs(),
                          terms.b.abs() + total_weight * normaliser.b.abs(),
                          terms.f.abs() + total_weight * normaliser.f.abs()};
    const double bound = 2.0 * w.abs().sum().item<double>() * c_e_t;
    require_gradients_match(
        fast, direct, scale,
        {torch::full_like(direct.a, bound), torch::full_like(direct.b, bound), torch::full_like(direct.f, bound)});
  }
}

// Both fast evaluations (the tensor-operation one and the fused one) against the direct matrix.
void require_fast_matches_direct(SigmoidStack& model) {
  require_matches_direct(
      model, "tensor operations", [&] { return model.forward_fast(); }, true);
  require_matches_direct(
      model, "fused", [&] { return model.log_probabilities(); }, false);
}

// Norm-wise over all parameters: ||g_fast - g_direct||_inf <= 1e-12 ||g_direct||_inf + 2 Σ_i |w_i| C e^{-T}
// for L = Σ_i w_i log p_i. Meaningful where the gradient does not cancel to rounding noise (it does on
// layouts that make log p nearly invariant to a parameter; require_fast_matches_direct covers those).
void require_gradients_match_normwise(SigmoidStack& model, bool fused = false) {
  INFO((fused ? "fused" : "tensor operations"));
  const torch::Tensor w = uniform(model.grid().size, -1.0, 1.0, 97);
  const auto all = [](const Gradients& g) { return torch::cat({g.a.reshape(-1), g.b, g.f}); };
  const torch::Tensor fast =
      all(gradients_of(model, [&] { return (w * (fused ? model.log_probabilities() : model.forward_fast())).sum(); }));
  const torch::Tensor direct = all(gradients_of(model, [&] { return (w * model.forward_direct()).sum(); }));
  const double bound = 2.0 * w.abs().sum().item<double>() * model.options().slope * std::exp(-kSigmoidSaturation);
  INFO(fmt::format("||g_fast - g_direct|| = {:.3e}, ||g_direct|| = {:.3e}", max_abs(fast - direct), max_abs(direct)));
  CHECK(max_abs(fast - direct) <= 1e-12 * max_abs(direct) + bound);
}

// p normalised, log p mirrored bit for bit, and the table non-increasing away from 0.
void require_symmetric_monotone_distribution(SigmoidStack& model) {
  torch::NoGradGuard no_grad;
  for (int evaluation : {0, 1, 2}) {
    INFO((evaluation == 0 ? "fast" : evaluation == 1 ? "direct" : "fused"));
    const torch::Tensor log_p = evaluation == 0   ? model.forward_fast()
                                : evaluation == 1 ? model.forward_direct()
                                                  : model.log_probabilities();
    CHECK(std::abs(torch::logsumexp(log_p, 0).item<double>()) <= 1e-13);
    CHECK(torch::equal(log_p, log_p.flip(0)));
    const torch::Tensor half = log_p.narrow(0, 0, model.grid().size / 2 + 1);
    CHECK((half.narrow(0, 1, half.size(0) - 1) >= half.narrow(0, 0, half.size(0) - 1)).all().item<bool>());
  }
  const NoiseTable table = table_of(model);
  CHECK(table.support_kind() == SupportKind::kSymmetric);
  CHECK(table.is_symmetric_monotone());
}

}  // namespace

TEST_CASE("sigmoid stack: fast evaluation equals the direct matrix on the paper's initialisation",
          "[models][sigmoid-stack]") {
  // (range, step) gives E = 2 range / step + 1 points: 201, 1001, 2001.
  const auto [range, sigmoids] = GENERATE(table<double, int64_t>({{1.0, 10}, {1.0, 500}, {5.0, 100}, {10.0, 500}}));
  const double slope = GENERATE(1.0, 500.0, 5000.0);
  CAPTURE(range, sigmoids, slope);
  auto model = make_stack(Grid::symmetric(range, 0.01), sigmoids, slope);
  {
    torch::NoGradGuard no_grad;
    REQUIRE(model->forward_fused().defined());  // the fused path applies to the paper's initialisation
  }
  require_fast_matches_direct(*model);
  require_gradients_match_normwise(*model);
  require_gradients_match_normwise(*model, true);
  require_symmetric_monotone_distribution(*model);
}

TEST_CASE("sigmoid stack: an even number of grid points (no point at 0): every evaluation agrees",
          "[models][sigmoid-stack]") {
  const Grid grid{-0.995, 0.01, 200};  // ±0.005 .. ±0.995
  REQUIRE(grid.is_symmetric());
  auto model = make_stack(grid, 40, 500.0);
  {
    torch::NoGradGuard no_grad;
    REQUIRE(model->forward_fused().defined());
  }
  require_fast_matches_direct(*model);
  require_gradients_match_normwise(*model, true);
  require_symmetric_monotone_distribution(*model);
}

TEST_CASE("sigmoid stack: fast evaluation equals the direct matrix on adversarial centre layouts",
          "[models][sigmoid-stack]") {
  const Grid grid = Grid::symmetric(2.0, 0.01);  // E = 401, r = 2
  const double r = 2.0;
  const int64_t K = 120;
  const double slope = GENERATE(1.0, 500.0, 5000.0);
  const double a = GENERATE(10.0, 1e-150, 0.0);  // A² = 100, 1e-300, 0
  CAPTURE(slope, a);
  auto model = make_stack(grid, K, slope);
  const torch::Tensor b = uniform(K, 0.0, 1.0, 3);
  // Every third weight is 0: the term is absent, and must give neither NaN nor a gradient.
  const torch::Tensor b_with_zeros = b * (torch::arange(K) % 3 != 0).to(torch::kDouble);

  SECTION("clustered: all centres within 0.01") {
    set_parameters(*model, a, b, uniform(K, -0.7, -0.69, 5));
    require_fast_matches_direct(*model);
    require_symmetric_monotone_distribution(*model);
  }
  SECTION("coincident: every centre at the same point") {
    set_parameters(*model, a, b, torch::full({K}, -0.5, torch::kDouble));
    require_fast_matches_direct(*model);
    require_symmetric_monotone_distribution(*model);
  }
  SECTION("coincident in pairs, on grid points") {
    set_parameters(*model, a, b, torch::div(torch::arange(K), 2, "floor").to(torch::kDouble) * -0.03);
    require_fast_matches_direct(*model);
    require_symmetric_monotone_distribution(*model);
  }
  SECTION("outside the range: half below -r, half above 0") {
    set_parameters(*model, a, b, torch::cat({uniform(K / 2, -3.0 * r, -r, 5), uniform(K - K / 2, 0.0, 2.0 * r, 6)}));
    require_fast_matches_direct(*model);
    require_symmetric_monotone_distribution(*model);
  }
  SECTION("every centre above 0: f is a sum of left tails, log p linear in x for large C") {
    set_parameters(*model, a, b, uniform(K, 0.1, 1.0, 5));
    require_fast_matches_direct(*model);
    require_symmetric_monotone_distribution(*model);
  }
  SECTION("some B_j = 0, equidistant centres") {
    set_parameters(*model, a, b_with_zeros, -r + torch::arange(K, torch::kDouble) * (r / K));
    require_fast_matches_direct(*model);
    require_symmetric_monotone_distribution(*model);
  }
  SECTION("some B_j = 0, centres outside the range and clustered") {
    set_parameters(*model, a, b_with_zeros,
                   torch::cat({uniform(K / 3, -5.0, -4.0, 8), uniform(K / 3, -1.0, -0.995, 9),
                               uniform(K - 2 * (K / 3), 0.5, 3.0, 10)}));
    require_fast_matches_direct(*model);
    require_symmetric_monotone_distribution(*model);
  }
  SECTION("centres that change order between evaluations (the fused path sorts from the previous order)") {
    set_parameters(*model, a, b, -r + torch::arange(K, torch::kDouble) * (r / K));
    {
      torch::NoGradGuard no_grad;
      model->log_probabilities();
    }
    // A few neighbours swapped (insertion from the previous order), then every centre moved (a full sort).
    set_parameters(*model, a, b, -r + torch::arange(K, torch::kDouble) * (r / K) + uniform(K, 0.0, 0.05, 13));
    require_fast_matches_direct(*model);
    set_parameters(*model, a, b, uniform(K, -r, 0.0, 14));
    require_fast_matches_direct(*model);
    set_parameters(*model, a, b, -torch::arange(K, torch::kDouble) * (r / K));  // descending
    require_fast_matches_direct(*model);
    require_symmetric_monotone_distribution(*model);
  }
  SECTION("weights spanning 300 orders of magnitude") {
    set_parameters(*model, a, torch::pow(10.0, uniform(K, -150.0, 0.0, 11)), uniform(K, -2.5, 0.5, 12));
    require_fast_matches_direct(*model);
    require_symmetric_monotone_distribution(*model);
  }
}

TEST_CASE("sigmoid stack: fast evaluation equals the direct matrix on the paper's grid", "[models][sigmoid-stack]") {
  // E = 60,001 (step 1/60 on [-500, 500]), where C x reaches 2.5e5; K = 1,000 keeps the direct matrix at
  // 30,001 × 1,000. A = 0 leaves the left of every centre to the tail sums. Values only (the gradients are
  // compared on the smaller grids above).
  const double a = GENERATE(10.0, 0.0);
  CAPTURE(a);
  auto model = make_stack(Grid::symmetric(500.0, 1.0 / 60.0), 1000, 500.0);
  set_parameters(*model, a, model->B().detach().clone(), model->F().detach().clone());
  torch::NoGradGuard no_grad;
  const torch::Tensor direct = model->forward_direct();
  REQUIRE(torch::isfinite(direct).all().item<bool>());
  for (const torch::Tensor& fast : {model->forward_fast(), model->forward_fused()}) {
    REQUIRE(fast.defined());
    const double error = max_abs((fast - direct) / direct.abs().clamp_min(1.0));
    INFO(fmt::format("largest |log p_fast - log p_direct| / max(1, |log p_direct|) = {:.3e}", error));
    CHECK(error <= 1e-12);
  }
  CHECK(table_of(*model).is_symmetric_monotone());
}

TEST_CASE("sigmoid stack: a single sigmoid right of the grid gives log p linear with slope C",
          "[models][sigmoid-stack]") {
  // A = 0, K = 1, F = 0.5: f(x) = B² σ(C (x - F)) with C (x - F) down to -17,500 (σ = 0 in float64 linear
  // space). log f = log B² + C (x - F) - log1p(e^{C (x - F)}), so log p_{i+1} - log p_i = C h to rounding.
  const Grid grid = Grid::symmetric(3.0, 0.01);
  auto model = make_stack(grid, 1, 5000.0);
  set_parameters(*model, 0.0, torch::full({1}, 0.3, torch::kDouble), torch::full({1}, 0.5, torch::kDouble));
  const torch::Tensor log_p = model->forward_fast().detach();
  const int64_t half = grid.size / 2 + 1;
  const torch::Tensor steps = log_p.narrow(0, 1, half - 1) - log_p.narrow(0, 0, half - 1);
  const double c_h = 5000.0 * 0.01;
  CHECK(max_abs(steps - c_h) <= 1e-11);  // differences of values up to 1.75e4 (ulp 3.6e-12)
  require_fast_matches_direct(*model);
}

TEST_CASE("sigmoid stack: initialisation of Sommer et al., section 3.3", "[models][sigmoid-stack]") {
  const Grid grid = Grid::symmetric(500.0, 1.0 / 60.0);
  const double r = grid.last();
  SigmoidStackOptions options;
  options.seed = 42;
  const SigmoidStack model(grid, options);
  REQUIRE(model.F().size(0) == 10000);
  CHECK(model.A().item<double>() == 10.0);
  CHECK(model.B().min().item<double>() >= 0.0);
  CHECK(model.B().max().item<double>() < 1.0);
  CHECK(model.options().slope == 500.0);
  // F_j = -r + j r / K: equidistant in [-r, 0).
  CHECK(model.F()[0].item<double>() == -r);
  CHECK(model.F()[-1].item<double>() < 0.0);
  const torch::Tensor gaps = model.F().narrow(0, 1, 9999) - model.F().narrow(0, 0, 9999);
  CHECK(max_abs(gaps - r / 10000.0) <= 1e-12);
  CHECK(model.parameters().size() == 3);

  SECTION("a seed makes B reproducible; without one, torch::manual_seed does") {
    CHECK(torch::equal(SigmoidStack(grid, options).B(), model.B()));
    options.seed.reset();
    torch::manual_seed(5);
    const torch::Tensor first = SigmoidStack(grid, options).B().clone();
    torch::manual_seed(5);
    CHECK(torch::equal(SigmoidStack(grid, options).B(), first));
  }
  SECTION("log_probabilities follows exact_fast") {
    SigmoidStackOptions small;
    small.sigmoids = 50;
    small.seed = 1;
    SigmoidStack fast(Grid::symmetric(1.0, 0.01), small);
    small.exact_fast = false;
    SigmoidStack direct(Grid::symmetric(1.0, 0.01), small);
    torch::NoGradGuard no_grad;
    CHECK(torch::equal(fast.log_probabilities(), fast.forward_fused()));
    CHECK(torch::equal(direct.log_probabilities(), direct.forward_direct()));
  }
  SECTION("the support is the whole grid") {
    CHECK(model.support_mask().all().item<bool>());
    CHECK(model.support_mask().size(0) == grid.size);
  }
}

TEST_CASE("sigmoid stack: refuses grids and options it cannot use", "[models][sigmoid-stack]") {
  CHECK_THROWS_AS(SigmoidStack(Grid::spanning(-1.0, 2.0, 0.5)), InputError);
  SigmoidStackOptions options;
  options.sigmoids = 0;
  CHECK_THROWS_AS(SigmoidStack(Grid::symmetric(1.0, 0.5), options), InputError);
  options = {};
  options.slope = 0.0;
  CHECK_THROWS_AS(SigmoidStack(Grid::symmetric(1.0, 0.5), options), InputError);
  options.slope = std::nan("");
  CHECK_THROWS_AS(SigmoidStack(Grid::symmetric(1.0, 0.5), options), InputError);
}

TEST_CASE("sigmoid stack: the masses from the normalisation are e^{log p} to a few roundings, log p unchanged",
          "[models][sigmoid-stack][fused]") {
  const int64_t E = GENERATE(7, 6001, 60001);
  const int64_t K = E == 7 ? 3 : E / 6;
  CAPTURE(E, K);
  SigmoidStackOptions options;
  options.sigmoids = K;
  options.seed = 17;
  SigmoidStack model(Grid::symmetric(static_cast<double>(E / 2) / 60.0, 1.0 / 60.0), options);
  {
    // Moved centres and weights, so that windows, tails and saturated runs all occur.
    torch::NoGradGuard no_grad;
    for (auto& p : model.parameters()) p.add_(0.05 * torch::randn_like(p));
  }
  const torch::Tensor log_p = model.log_probabilities().detach();
  const NoiseModel::Table table = model.log_probabilities_and_masses();
  REQUIRE(table.log_p.requires_grad());
  CHECK(torch::equal(table.log_p.detach(), log_p));
  REQUIRE_FALSE(table.p.requires_grad());
  const torch::Tensor expected = log_p.exp();
  // Relative to each entry where it is a normal number (p_i = e^{running_i - top} / total against
  // e^{running_i - top - log total}: the rounding of the logarithm, about 1e-16 times |log p| ~ 700, dominates).
  const torch::Tensor normal = expected > 1e-300;
  const double relative = ((table.p - expected).abs() / expected).index({normal}).max().item<double>();
  INFO(fmt::format("max relative difference {:.3e}", relative));
  CHECK(relative <= 1e-12);
  CHECK(torch::equal(table.p, table.p.flip(0)));  // symmetric bit for bit, as log p
  // The default (any model): exp(log p) itself.
  SigmoidStackOptions tensor_operations = options;
  tensor_operations.fused = false;
  SigmoidStack reference(Grid::symmetric(static_cast<double>(E / 2) / 60.0, 1.0 / 60.0), tensor_operations);
  const NoiseModel::Table by_default = reference.log_probabilities_and_masses();
  CHECK(torch::equal(by_default.p, by_default.log_p.detach().exp()));
}
