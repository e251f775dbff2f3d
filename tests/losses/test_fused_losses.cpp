// The fused training paths against the tensor-operation versions they replace (kept as the references): the same
// loss values to 1e-12 relative and the same gradients to 1e-12 of the gradient's largest component, on random
// tables (asymmetric, with zeros and distinguishing events) and at the paper's scale; and the one-evaluation path
// for symmetric tables against the two directions evaluated separately.
#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <memory>

#include "losses/differentiable_pair.hpp"
#include "losses/moments_accountant_loss.hpp"
#include "losses/planned_fft.hpp"
#include "losses/privacy_buckets_composition.hpp"
#include "losses/privacy_buckets_loss.hpp"
#include "losses/soft_pld_loss.hpp"
#include "losses/utility_loss.hpp"
#include "models/sigmoid_stack.hpp"
#include "models/sigmoid_stack_evaluation.hpp"
#include "models/symmetric_half.hpp"

using namespace noiselearn;

namespace {

double max_abs(const torch::Tensor& t) { return t.abs().max().item<double>(); }

// A random normalised log table of E points: Gaussian-like with noise, `zeros` cells set to probability 0.
torch::Tensor random_log_table(int64_t E, uint64_t seed, bool with_zeros) {
  torch::manual_seed(seed);
  const torch::Tensor x = torch::linspace(-1.0, 1.0, E, torch::kDouble);
  torch::Tensor logits = -4.0 * x.square() + 0.3 * torch::randn({E}, torch::kDouble) + 0.5 * x;
  if (with_zeros) logits.index_put_({torch::rand({E}, torch::kDouble) < 0.1}, -std::numeric_limits<double>::infinity());
  return (logits - torch::logsumexp(logits, 0)).detach();
}

struct ValueAndGradient {
  double value;
  torch::Tensor gradient;
};

ValueAndGradient evaluate(PrivacyLoss& loss, const torch::Tensor& log_p, int64_t shift) {
  const torch::Tensor leaf = log_p.detach().clone().requires_grad_();
  const torch::Tensor delta = loss.delta(additive_pair(leaf, shift), DirectionCombination::kSum);
  delta.backward();
  return {delta.item<double>(), leaf.grad().clone()};
}

void require_same(const ValueAndGradient& fused, const ValueAndGradient& reference) {
  INFO(fmt::format("fused {:.17g}, reference {:.17g}", fused.value, reference.value));
  CHECK(std::abs(fused.value - reference.value) <= 1e-12 * std::abs(reference.value));
  REQUIRE(torch::isfinite(fused.gradient).all().item<bool>());
  const double error = max_abs(fused.gradient - reference.gradient), scale = max_abs(reference.gradient);
  INFO(fmt::format("gradient: max |fused - reference| = {:.3e}, max |reference| = {:.3e}", error, scale));
  // Plus 1e-15 |delta|: a gradient below that is rounding noise of the value (the paper's literal factor at n = 128
  // puts every loss in the infinity bucket, delta = 2, and leaves gradients of 1e-65 made of 1 - (1 - 1e-17) terms).
  CHECK(error <= 1e-12 * scale + 1e-15 * std::abs(reference.value));
}

}  // namespace

TEST_CASE("fused PrivacyBuckets (bucketing and composition) equal the tensor-operation reference",
          "[fused][privacy-buckets]") {
  const auto [E, shift] = GENERATE(table<int64_t, int64_t>({{7, 1}, {201, 3}, {2001, 20}}));
  // The automatic factor, and the paper's literal one (every index far outside the buckets) for one release: composed,
  // the literal factor saturates delta and leaves gradients that are rounding noise of cancelling bucket
  // gradients, compared with the same bucket gradients in the next test case instead.
  const auto [n, factor] = GENERATE(table<int64_t, double>({{1, 0.0}, {5, 0.0}, {128, 0.0}, {1, 1.000001}}));
  const bool with_zeros = GENERATE(false, true);
  const auto kind = GENERATE(PrivacyBucketsOptions::Kind::kAdp, PrivacyBucketsOptions::Kind::kPdp);
  CAPTURE(E, shift, n, with_zeros, kind == PrivacyBucketsOptions::Kind::kAdp, factor);
  PrivacyBucketsOptions options;
  options.epsilon = 0.3;
  options.compositions = n;
  options.kind = kind;
  options.factor = factor;
  options.buckets = 200;
  PrivacyBucketsOptions reference_options = options;
  reference_options.fused = false;
  PrivacyBucketsLoss fused(options), reference(reference_options);
  const torch::Tensor log_p = random_log_table(E, 17 + static_cast<uint64_t>(E), with_zeros);
  require_same(evaluate(fused, log_p, shift), evaluate(reference, log_p, shift));
}

TEST_CASE("fused single-release buckets: the same buckets and, for the same bucket gradients, the same gradients",
          "[fused][privacy-buckets]") {
  const auto [E, shift] = GENERATE(table<int64_t, int64_t>({{7, 1}, {201, 3}, {2001, 20}}));
  const double factor = GENERATE(0.0, 1.000001);
  const bool with_zeros = GENERATE(false, true);
  CAPTURE(E, shift, factor, with_zeros);
  PrivacyBucketsOptions options;
  options.factor = factor;
  options.buckets = 200;
  PrivacyBucketsOptions reference_options = options;
  reference_options.fused = false;
  PrivacyBucketsLoss fused(options), reference(reference_options);
  const torch::Tensor log_p = random_log_table(E, 29 + static_cast<uint64_t>(E), with_zeros);
  const torch::Tensor weights = torch::randn({201}, torch::kDouble);
  const auto run = [&](PrivacyBucketsLoss& loss) {
    const torch::Tensor leaf = log_p.clone().requires_grad_();
    const LogPair direction = additive_pair(leaf, shift).forward();
    const PrivacyBuckets buckets = loss.single_release_buckets(direction, loss.log_factor(direction));
    (weights * buckets.finite).sum().add(0.7 * buckets.infinity).backward();
    return std::make_tuple(buckets.finite.detach(), buckets.infinity.item<double>(), leaf.grad().clone());
  };
  const auto [finite, infinity, gradient] = run(fused);
  const auto [reference_finite, reference_infinity, reference_gradient] = run(reference);
  CHECK(max_abs(finite - reference_finite) <= 1e-15 * reference_finite.abs().sum().item<double>());
  CHECK(std::abs(infinity - reference_infinity) <= 1e-15 * std::abs(reference_infinity) + 1e-300);
  const double error = max_abs(gradient - reference_gradient), scale = max_abs(reference_gradient);
  INFO(fmt::format("gradient: max |fused - reference| = {:.3e}, max |reference| = {:.3e}", error, scale));
  CHECK(error <= 1e-12 * scale);
}

TEST_CASE(
    "fused single-release buckets keep the caller's masses without a copy: changing them in place before backward is "
    "an error",
    "[fused][privacy-buckets]") {
  PrivacyBucketsOptions options;
  options.buckets = 200;
  PrivacyBucketsLoss loss(options);
  const torch::Tensor leaf = random_log_table(201, 31, true).requires_grad_();
  const LogPair direction = additive_pair(leaf, 3).forward();
  const torch::Tensor masses = direction.log_first.detach().exp();
  const bool change = GENERATE(false, true);
  CAPTURE(change);
  const PrivacyBuckets buckets = loss.single_release_buckets(direction, masses, loss.log_factor(direction, masses));
  const torch::Tensor objective = buckets.finite.sum() + buckets.infinity;
  if (change) {
    masses.mul_(2.0);
    REQUIRE_THROWS_WITH(objective.backward(), Catch::Contains("modified in place"));
  } else {
    objective.backward();
    CHECK(torch::isfinite(leaf.grad()).all().item<bool>());
  }
}

TEST_CASE(
    "fused single-release buckets: a non-finite gradient of an end bucket reaches the same outcomes as in the "
    "reference",
    "[fused][privacy-buckets]") {
  // The backward's short path (outcomes far from both ends, where smallerThan and its slope are 0) must not drop
  // the 0 * NaN of the general expressions: the NaN guard of the training looks for it in the gradient.
  const double bad = GENERATE(std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity());
  const bool at_infinity = GENERATE(false, true);
  CAPTURE(bad, at_infinity);
  PrivacyBucketsOptions options;
  options.buckets = 1000;  // h = 500: the middle buckets are more than 150 from both ends
  PrivacyBucketsOptions reference_options = options;
  reference_options.fused = false;
  PrivacyBucketsLoss fused(options), reference(reference_options);
  const torch::Tensor log_p = random_log_table(201, 31, false);
  torch::Tensor weights = torch::randn({1001}, torch::kDouble);
  if (!at_infinity) weights[0] = bad;
  const auto run = [&](PrivacyBucketsLoss& loss) {
    const torch::Tensor leaf = log_p.clone().requires_grad_();
    const LogPair direction = additive_pair(leaf, 3).forward();
    const PrivacyBuckets buckets = loss.single_release_buckets(direction, loss.log_factor(direction));
    (weights * buckets.finite).sum().add((at_infinity ? bad : 0.7) * buckets.infinity).backward();
    return leaf.grad().clone();
  };
  const torch::Tensor gradient = run(fused), reference_gradient = run(reference);
  const torch::Tensor finite = torch::isfinite(gradient), reference_finite = torch::isfinite(reference_gradient);
  CHECK(torch::equal(finite, reference_finite));
  CHECK(reference_finite.logical_not().sum().item<int64_t>() > 100);  // most outcomes: the case is a real one
}

TEST_CASE(
    "fused n-fold composition of PrivacyBuckets: the same values and gradients as square-and-multiply by autograd",
    "[fused][privacy-buckets]") {
  const int64_t n = GENERATE(1, 2, 3, 7, 12, 128);
  CAPTURE(n);
  torch::manual_seed(5);
  const int64_t half = 50;
  const torch::Tensor finite = (torch::rand({2 * half + 1}, torch::kDouble) * 0.9 / (2 * half + 1)).requires_grad_();
  const torch::Tensor infinity = torch::full({}, 0.01, torch::kDouble).requires_grad_();
  const torch::Tensor weights = torch::randn({2 * half + 1}, torch::kDouble);
  const auto run = [&](bool fused) {
    finite.mutable_grad() = torch::Tensor();
    infinity.mutable_grad() = torch::Tensor();
    const PrivacyBuckets out = fused ? self_compose_fused({finite, infinity}, n) : self_compose({finite, infinity}, n);
    (weights * out.finite).sum().add(3.0 * out.infinity).backward();
    return std::make_tuple(out.finite.detach(), out.infinity.item<double>(), finite.grad().clone(),
                           infinity.grad().item<double>());
  };
  const auto [f_fused, i_fused, gf_fused, gi_fused] = run(true);
  const auto [f_ref, i_ref, gf_ref, gi_ref] = run(false);
  // The fused path transforms by the planned FFT (losses/planned_fft.hpp), the reference by torch's: the same
  // convolutions, rounded differently (normwise, within a few ulps per level).
  CHECK(max_abs(f_fused - f_ref) <= 1e-12 * max_abs(f_ref));
  CHECK(std::abs(i_fused - i_ref) <= 1e-12 * std::abs(i_ref));
  CHECK(max_abs(gf_fused - gf_ref) <= 1e-12 * max_abs(gf_ref));
  CHECK(std::abs(gi_fused - gi_ref) <= 1e-12 * std::abs(gi_ref));
}

TEST_CASE("the additive pair's one function: the concatenations' values and gradients bit for bit",
          "[fused][directions]") {
  const int64_t E = GENERATE(1, 7, 2001);
  const int64_t shift = GENERATE(0, 1, 60);
  CAPTURE(E, shift);
  const torch::Tensor log_p = random_log_table(E, 5 + static_cast<uint64_t>(E), true);
  // A loss with a different weight on every outcome of both tables, so that each gradient term is distinguishable.
  const torch::Tensor weights_a = torch::randn({E + shift}, torch::kDouble),
                      weights_b = torch::randn({E + shift}, torch::kDouble);
  const auto run = [&](bool fused) {
    const torch::Tensor leaf = log_p.clone().requires_grad_();
    const DifferentiablePair pair = fused ? additive_pair(leaf, shift) : additive_pair_by_concatenation(leaf, shift);
    const auto finite = [](const torch::Tensor& t) {
      return torch::where(torch::isfinite(t), t, torch::zeros_like(t));
    };
    // The pair's tables themselves, -inf where padded, bit for bit (the fused ones are two views of one padded copy).
    REQUIRE(pair.log_a.size(0) == E + shift);
    REQUIRE(pair.log_a.is_contiguous());
    REQUIRE(pair.log_b.is_contiguous());
    (finite(pair.log_a) * weights_a + finite(pair.log_b) * weights_b).sum().backward();
    return std::make_tuple(pair.log_a.detach(), pair.log_b.detach(), leaf.grad().clone());
  };
  const auto [a, b, gradient] = run(true);
  const auto [a_ref, b_ref, gradient_ref] = run(false);
  CHECK(torch::equal(a, a_ref));
  CHECK(torch::equal(b, b_ref));
  CHECK(torch::equal(gradient, gradient_ref));
  // d log p_i = w^A_i + w^B_{i+k} where log p_i is finite (the mask's zero elsewhere), independently of either version.
  const torch::Tensor expected = torch::where(
      torch::isfinite(log_p), weights_a.narrow(0, 0, E) + weights_b.narrow(0, shift, E), torch::zeros_like(log_p));
  CHECK(torch::equal(gradient, expected));
}

TEST_CASE("losses given the masses e^{log p} with the pair: the same values and gradients as without",
          "[fused][directions]") {
  const bool symmetric = GENERATE(false, true);
  CAPTURE(symmetric);
  torch::Tensor log_p = random_log_table(201, 8, true);
  if (symmetric) {
    const torch::Tensor half = log_p.narrow(0, 0, 101);
    log_p = torch::cat({half, half.flip(0).narrow(0, 1, 100)});
    log_p = (log_p - torch::logsumexp(log_p, 0)).detach();
  }
  const torch::Tensor p = log_p.exp();
  const DifferentiablePair with_masses = additive_pair(log_p, 5, p);
  // The masses are the pair's tables exponentiated, zeros where padded.
  CHECK(torch::equal(with_masses.a, with_masses.log_a.exp()));
  CHECK(torch::equal(with_masses.b, with_masses.log_b.exp()));
  const bool soft_pld = GENERATE(false, true);
  CAPTURE(soft_pld);
  std::unique_ptr<PrivacyLoss> loss_pointer;
  if (soft_pld) {
    SoftPldLossOptions options;
    options.compositions = 16;
    loss_pointer = std::make_unique<SoftPldLoss>(options);
  } else {
    PrivacyBucketsOptions options;
    options.compositions = 16;
    loss_pointer = std::make_unique<PrivacyBucketsLoss>(options);
  }
  PrivacyLoss& loss = *loss_pointer;
  const auto run = [&](bool masses) {
    const torch::Tensor leaf = log_p.clone().requires_grad_();
    const torch::Tensor delta =
        loss.delta(additive_pair(leaf, 5, masses ? p : torch::Tensor()), DirectionCombination::kSum);
    const torch::Tensor utility =
        utility_loss(leaf, Grid::symmetric(1.0, 0.01), UtilitySpecification{}, masses ? p : torch::Tensor());
    (delta + 0.3 * utility).backward();
    return std::make_tuple(delta.item<double>(), utility.item<double>(), leaf.grad().clone());
  };
  const auto [delta, utility, gradient] = run(true);
  const auto [delta_ref, utility_ref, gradient_ref] = run(false);
  // The same masses as the losses compute themselves: the same bits.
  CHECK(delta == delta_ref);
  CHECK(utility == utility_ref);
  CHECK(torch::equal(gradient, gradient_ref));
}

TEST_CASE("is_mirror_symmetric: b is a reversed bit for bit, whichever block of 1,024 a difference falls in",
          "[fused][directions]") {
  const int64_t n = 5000;
  const torch::Tensor a = torch::linspace(-3.0, 2.0, n, torch::kDouble).sin();
  CHECK(is_mirror_symmetric(DifferentiablePair{a, a.flip(0).clone()}));
  for (const int64_t where : {int64_t{0}, int64_t{1023}, int64_t{1024}, int64_t{2500}, n - 1}) {
    INFO("difference at " << where);
    torch::Tensor b = a.flip(0).clone();
    b[where] = std::nextafter(b[where].item<double>(), 10.0);  // one ulp
    CHECK_FALSE(is_mirror_symmetric(DifferentiablePair{a, b}));
    b[where] = std::numeric_limits<double>::quiet_NaN();
    CHECK_FALSE(is_mirror_symmetric(DifferentiablePair{a, b}));
  }
  // -inf (a zero probability) mirrored is symmetric.
  torch::Tensor c = a.clone();
  c[0] = -std::numeric_limits<double>::infinity();
  CHECK(is_mirror_symmetric(DifferentiablePair{c, c.flip(0).clone()}));
  CHECK_FALSE(is_mirror_symmetric(DifferentiablePair{c, a.flip(0).clone()}));
}

TEST_CASE("a symmetric table's pair is evaluated once: the same value and gradient as both directions",
          "[fused][directions]") {
  // A symmetric table (log p mirrored bit for bit): B||A is A||B reversed.
  const torch::Tensor half = random_log_table(101, 3, false).narrow(0, 0, 51);
  torch::Tensor log_p = torch::cat({half, half.flip(0).narrow(0, 1, 50)});
  log_p = (log_p - torch::logsumexp(log_p, 0)).detach();
  REQUIRE(torch::equal(log_p, log_p.flip(0)));
  REQUIRE(is_mirror_symmetric(additive_pair(log_p, 4)));
  REQUIRE_FALSE(is_mirror_symmetric(additive_pair(random_log_table(101, 4, false), 4)));
  PrivacyBucketsOptions options;
  options.compositions = 16;
  PrivacyBucketsLoss loss(options);
  for (const DirectionCombination combination : {DirectionCombination::kSum, DirectionCombination::kMax}) {
    const torch::Tensor once = log_p.clone().requires_grad_(), both = log_p.clone().requires_grad_();
    const torch::Tensor value = loss.delta(additive_pair(once, 4), combination);
    value.backward();
    const DifferentiablePair pair = additive_pair(both, 4);
    const torch::Tensor forward = loss.direction_delta(pair.forward(), 0),
                        backward = loss.direction_delta(pair.backward(), 1);
    CHECK(std::abs(forward.item<double>() - backward.item<double>()) <= 1e-14 * forward.item<double>());
    // The separate evaluation with the tie split evenly (torch::maximum's rule for equal values; the two directions
    // differ by rounding only, so the explicit 0.5/0.5 makes the comparison independent of that rounding).
    const torch::Tensor separate =
        combination == DirectionCombination::kSum ? forward + backward : 0.5 * (forward + backward);
    separate.backward();
    CHECK(std::abs(value.item<double>() - separate.item<double>()) <= 1e-13 * separate.item<double>());
    CHECK(max_abs(once.grad() - both.grad()) <= 1e-12 * max_abs(both.grad()));
  }
}

TEST_CASE("fused moments accountant: the same value and gradients (noise and lambda) as tensor operations",
          "[fused][moments-accountant]") {
  const int64_t E = GENERATE(7, 201, 2001);
  const bool with_zeros = GENERATE(false, true);
  const int64_t n = GENERATE(1, 128);
  CAPTURE(E, with_zeros, n);
  const torch::Tensor log_p = random_log_table(E, 41 + static_cast<uint64_t>(E), with_zeros);
  const auto run = [&](bool fused) {
    MomentsAccountantLossOptions options;
    options.compositions = n;
    options.epsilon = 1.0;
    options.initial_lambda_sq = 1.3;
    options.fused = fused;
    MomentsAccountantLoss loss(options);
    const ValueAndGradient noise = evaluate(loss, log_p, 2);
    std::vector<double> lambda_gradients;
    for (const auto& parameter : loss.parameters()) lambda_gradients.push_back(parameter.grad().item<double>());
    return std::make_pair(noise, lambda_gradients);
  };
  const auto [fused, fused_lambda] = run(true);
  const auto [reference, reference_lambda] = run(false);
  require_same(fused, reference);
  REQUIRE(fused_lambda.size() == 2);
  for (size_t d = 0; d < 2; ++d)
    CHECK(std::abs(fused_lambda[d] - reference_lambda[d]) <= 1e-12 * std::abs(reference_lambda[d]));
}

TEST_CASE("fused soft PLD (single release and composition): the same value and gradient as tensor operations",
          "[fused][soft-pld]") {
  const auto [E, shift] = GENERATE(table<int64_t, int64_t>({{7, 1}, {201, 3}, {2001, 20}}));
  const int64_t n = GENERATE(1, 3, 128);
  const bool with_zeros = GENERATE(false, true);
  CAPTURE(E, shift, n, with_zeros);
  const torch::Tensor log_p = random_log_table(E, 53 + static_cast<uint64_t>(E), with_zeros);
  const auto run = [&](bool fused) {
    SoftPldLossOptions options;
    options.compositions = n;
    options.epsilon = 1.0;
    options.fused = fused;
    SoftPldLoss loss(options);
    loss.symmetric_shortcut = false;
    return evaluate(loss, log_p, shift);
  };
  require_same(run(true), run(false));
}

TEST_CASE("the moments accountant keeps both directions (a lambda per direction)", "[fused][directions]") {
  MomentsAccountantLoss loss({});
  CHECK(loss.has_direction_parameters());
  PrivacyBucketsLoss buckets({});
  CHECK_FALSE(buckets.has_direction_parameters());
}

TEST_CASE("fused paths at the paper's scale: sigmoid stack and PrivacyBuckets, values and gradients of the parameters",
          "[fused][paper-scale]") {
  // E = 60,001 on [-500, 500], K = 10,000, shift 60 cells, n = 128: the benchmark's setting.
  const Grid grid = Grid::symmetric(500.0, 1.0 / 60.0);
  SigmoidStackOptions model_options;
  model_options.seed = 11;
  auto model = std::make_shared<SigmoidStack>(grid, model_options);
  {
    torch::NoGradGuard no_grad;  // move the centres off their equidistant start, as training does
    model->F().add_(0.02 * torch::randn({model->F().size(0)}, at::detail::createCPUGenerator(3), torch::kDouble));
  }
  const auto kind = GENERATE(PrivacyBucketsOptions::Kind::kAdp, PrivacyBucketsOptions::Kind::kPdp);
  PrivacyBucketsOptions options;
  options.compositions = 128;
  options.kind = kind;
  PrivacyBucketsOptions reference_options = options;
  reference_options.fused = false;
  PrivacyBucketsLoss fused(options), reference(reference_options);
  const auto parameter_gradients = [&] {
    return torch::cat({model->A().grad().reshape(-1), model->B().grad(), model->F().grad()});
  };

  // The losses, on the same log p (a leaf): the reference evaluates both directions separately by tensor operations;
  // the fused path once (the table is symmetric).
  const torch::Tensor log_p = model->forward_fast().detach();
  const auto loss_gradient = [&](PrivacyBucketsLoss& loss, bool separately) {
    const torch::Tensor leaf = log_p.clone().requires_grad_();
    const DifferentiablePair pair = additive_pair(leaf, 60);
    const torch::Tensor delta = separately
                                    ? loss.direction_delta(pair.forward(), 0) + loss.direction_delta(pair.backward(), 1)
                                    : loss.delta(pair, DirectionCombination::kSum);
    delta.backward();
    return std::make_pair(delta.item<double>(), leaf.grad().clone());
  };
  const auto [reference_delta, w] = loss_gradient(reference, true);
  const auto [fused_delta, fused_w] = loss_gradient(fused, false);
  // The reference itself, evaluated once for both directions: mathematically the same gradient. Their difference is
  // the reference's rounding noise (the FFT correlations of the bucket gradients carry an absolute error of about
  // 1e-16 of their inputs' size, which 1 / ln f = 500 amplifies; measured 1.5e-15 = 1.2e-11 of max |w|).
  const torch::Tensor reference_once_w = loss_gradient(reference, false).second;
  // The fused path transforms by the planned FFT (losses/planned_fft.hpp), or by torch's transforms under
  // TorchFftOnly. The two differ by the two FFTs' roundings only (each within Higham's bound, as accurate as
  // each other: tests/accounting/test_real_fft.cpp), which the same amplification turns into about 2e-13 in l2,
  // 3x the reference's noise above: that is part of the noise floor too.
  torch::Tensor torch_fft_w;
  {
    TorchFftOnly previous_version;
    torch_fft_w = loss_gradient(fused, false).second;
  }
  const double noise = max_abs(reference_once_w - w) + max_abs(torch_fft_w - fused_w);
  INFO(fmt::format("delta fused {:.17g}, reference {:.17g}", fused_delta, reference_delta));
  CHECK(std::abs(fused_delta - reference_delta) <= 1e-12 * reference_delta);
  INFO(fmt::format(
      "dL/dlog p: max |fused - reference| = {:.3e}, the rounding noise {:.3e} (reference {:.3e}, FFTs {:.3e}), max "
      "|reference| = {:.3e}",
      max_abs(fused_w - w), noise, max_abs(reference_once_w - w), max_abs(torch_fft_w - fused_w), max_abs(w)));
  CHECK(max_abs(fused_w - w) <= 1e-12 * max_abs(w) + 2.0 * noise);
  // With torch's transforms the fused path is also within the reference's own noise.
  CHECK(max_abs(torch_fft_w - w) <= 1e-12 * max_abs(w) + 2.0 * max_abs(reference_once_w - w));

  // The model, for the same upstream gradient w: fused against tensor operations. The parameter gradients are sums
  // of terms of both signs (log p is normalised: dL/dtheta = sum_i w_i dlog f_i/dtheta - sum_i w_i E_p[dlog f/dtheta]),
  // so they are compared, component by component, against the size of their terms, as in the model's tests:
  // |d/dtheta sum_i |w_i| log f_i| + |sum_i w_i| |d/dtheta logsumexp(log f)|.
  model->zero_grad();
  model->forward_fast().backward(w);
  const torch::Tensor reference_gradient = parameter_gradients();
  model->zero_grad();
  model->log_probabilities().backward(w);
  const torch::Tensor gradient = parameter_gradients();
  const Grid half{grid.origin, grid.step, grid.size - grid.size / 2};
  const auto full_profile = [&] {
    return mirror_half(sigmoid_stack_log_profile_fast(half, model->A(), model->B(), model->F(), model->options().slope),
                       grid);
  };
  model->zero_grad();
  (w.abs() * full_profile()).sum().backward();
  const torch::Tensor terms = parameter_gradients().abs();
  model->zero_grad();
  torch::logsumexp(full_profile(), 0).backward();
  const torch::Tensor scale = terms + std::abs(w.sum().item<double>()) * parameter_gradients().abs();
  const torch::Tensor error = (gradient - reference_gradient).abs();
  const int64_t worst = (error - 1e-12 * scale).argmax().item<int64_t>();
  INFO(fmt::format(
      "worst parameter {} (0: A, then B, then F): |fused - reference| = {:.3e}, scale {:.3e}, reference {:.6e}", worst,
      error[worst].item<double>(), scale[worst].item<double>(), reference_gradient[worst].item<double>()));
  CHECK((error <= 1e-12 * scale).all().item<bool>());
  INFO(fmt::format("normwise: max |fused - reference| = {:.3e}, max |reference| = {:.3e}",
                   max_abs(gradient - reference_gradient), max_abs(reference_gradient)));
  CHECK(max_abs(gradient - reference_gradient) <= 1e-12 * max_abs(reference_gradient));
  // log p is invariant to scaling A and every B_j together: A dL/dA + sum_j B_j dL/dB_j = 0.
  const int64_t K = model->F().size(0);
  const double a = model->A().item<double>();
  const torch::Tensor b_terms = model->B().detach() * gradient.narrow(0, 1, K);
  CHECK(std::abs(a * gradient[0].item<double>() + b_terms.sum().item<double>()) <=
        1e-12 * (b_terms.abs().sum().item<double>() + std::abs(a * gradient[0].item<double>())));
}

TEST_CASE("planned_rfft and planned_irfft: torch's transforms, by the planned FFT where it applies", "[fused][fft]") {
  torch::manual_seed(8);
  const torch::Tensor x = torch::rand({1001}, torch::kDouble);
  // Power of two on the CPU in float64: the planned FFT, equal to torch's up to rounding.
  const torch::Tensor spectrum = planned_rfft(x, 2048), reference = torch::fft::rfft(x, 2048);
  CHECK(spectrum.sizes() == reference.sizes());
  CHECK((spectrum - reference).abs().max().item<double>() <= 1e-14 * reference.abs().max().item<double>());
  const torch::Tensor back = planned_irfft(spectrum, 2048);
  CHECK((back.narrow(0, 0, 1001) - x).abs().max().item<double>() <= 1e-14);
  CHECK(back.narrow(0, 1001, 1047).abs().max().item<double>() <= 1e-14);
  // Anything else is torch's own transform, bit for bit: another size, another dtype, a graph to record.
  CHECK(torch::equal(planned_rfft(x, 3000), torch::fft::rfft(x, 3000)));
  const torch::Tensor single = x.to(torch::kFloat);
  CHECK(torch::equal(planned_rfft(single, 2048), torch::fft::rfft(single, 2048)));
  const torch::Tensor leaf = x.clone().requires_grad_();
  CHECK(planned_rfft(leaf, 2048).requires_grad());
  CHECK(planned_fft_size(2001) == 2048);
  CHECK(planned_fft_size(kLargestPlannedFft + 1) == smooth_fft_size(kLargestPlannedFft + 1));
}
