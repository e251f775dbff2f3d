// The PrivacyBuckets ADP/PDP training losses (Sommer et al., 3.4.2-3.4.3): value against an independent
// long-double bucketing, upper bound of the certified delta (and its bias), PDP >= ADP, the surrogate
// gradients against a hand derivation, and the composed infinity bucket in closed form.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "accounting/pair_accountant.hpp"
#include "core/baselines.hpp"
#include "core/errors.hpp"
#include "losses/privacy_buckets_loss.hpp"
#include "losses/privacy_buckets_surrogates.hpp"
#include "models/noise_model.hpp"

using namespace noiselearn;

namespace {

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();

// ---- The reference: the stated rules in plain loops, long double ----

using Real = long double;

struct ReferenceBuckets {
  std::vector<Real> finite;  // j = -h .. h at j + h
  Real infinity = 0;
};

Real sigmoid(Real z) { return 1 / (1 + std::exp(-z)); }
// smallerThan(x, y) = sigmoid(-5 (x - y + 0.5)).
Real smaller_than(Real x, Real y) { return sigmoid(-5 * (x - y + Real(0.5))); }

ReferenceBuckets reference_single_release(const std::vector<double>& log_first, const std::vector<double>& log_second,
                                          Real ln_f, int64_t h) {
  ReferenceBuckets buckets{std::vector<Real>(static_cast<size_t>(2 * h + 1), 0), 0};
  for (size_t i = 0; i < log_first.size(); ++i) {
    if (std::isinf(log_first[i])) continue;
    const Real p = std::exp(Real(log_first[i]));
    if (std::isinf(log_second[i])) {
      buckets.infinity += p;
      continue;
    }
    const Real x = std::ceil((Real(log_first[i]) - Real(log_second[i])) / ln_f);
    buckets.finite[0] += p * smaller_than(x, Real(-h + 1));
    buckets.infinity += p * smaller_than(Real(h), x);
    if (x >= -h + 1 && x <= h) buckets.finite[static_cast<size_t>(x + h)] += p;
  }
  return buckets;
}

ReferenceBuckets reference_compose(const ReferenceBuckets& a, const ReferenceBuckets& b, int64_t h) {
  ReferenceBuckets c{std::vector<Real>(static_cast<size_t>(2 * h + 1), 0),
                     a.infinity + b.infinity - a.infinity * b.infinity};
  for (int64_t i = -h; i <= h; ++i) {
    for (int64_t k = -h; k <= h; ++k) {
      const Real product = a.finite[static_cast<size_t>(i + h)] * b.finite[static_cast<size_t>(k + h)];
      const int64_t j = i + k;
      if (j > h)
        c.infinity += product;
      else
        c.finite[static_cast<size_t>(std::max(j, -h) + h)] += product;
    }
  }
  return c;
}

// Square-and-multiply in the same order as the loss (the confinement makes the order matter).
ReferenceBuckets reference_self_compose(const ReferenceBuckets& single, int64_t n, int64_t h) {
  ReferenceBuckets power = single, result;
  bool have = false;
  for (int64_t m = n; m > 0; m >>= 1) {
    if (m & 1) {
      result = have ? reference_compose(result, power, h) : power;
      have = true;
    }
    if (m > 1) power = reference_compose(power, power, h);
  }
  return result;
}

Real reference_weight(int64_t j, Real ln_f, double epsilon, PrivacyBucketsOptions::Kind kind) {
  if (Real(j) < std::ceil(Real(epsilon) / ln_f)) return 0;
  return kind == PrivacyBucketsOptions::Kind::kPdp ? Real(1)
                                                   : std::max(Real(0), -std::expm1(Real(epsilon) - Real(j) * ln_f));
}

Real reference_delta(const ReferenceBuckets& composed, Real ln_f, double epsilon, PrivacyBucketsOptions::Kind kind,
                     int64_t h) {
  Real delta = composed.infinity;
  for (int64_t j = -h; j <= h; ++j)
    delta += reference_weight(j, ln_f, epsilon, kind) * composed.finite[static_cast<size_t>(j + h)];
  return delta;
}

// ---- Helpers ----

std::vector<double> to_vector(const torch::Tensor& t) {
  const torch::Tensor c = t.detach().contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

LogPair log_pair(const std::vector<double>& log_first, const std::vector<double>& log_second) {
  return {torch::tensor(log_first, torch::kDouble), torch::tensor(log_second, torch::kDouble)};
}

// Two random log-distributions on 40 outcomes; `spread` scales the log-probabilities and so the losses. Every
// 13th outcome is impossible under first, and outcome 5 is a distinguishing event (second = 0) of small mass.
LogPair random_pair(std::mt19937_64& rng, double spread) {
  std::normal_distribution<double> normal(0.0, spread);
  std::vector<double> first(40), second(40);
  for (size_t i = 0; i < first.size(); ++i) {
    first[i] = normal(rng);
    second[i] = normal(rng);
    if (i % 13 == 0) first[i] = kMinusInfinity;
  }
  first[5] -= 4.0;
  second[5] = kMinusInfinity;
  return {torch::log_softmax(torch::tensor(first, torch::kDouble), 0),
          torch::log_softmax(torch::tensor(second, torch::kDouble), 0)};
}

PrivacyBucketsOptions options_with(double epsilon, int64_t n, int64_t buckets, double factor,
                                   PrivacyBucketsOptions::Kind kind) {
  PrivacyBucketsOptions options;
  options.epsilon = epsilon;
  options.compositions = n;
  options.buckets = buckets;
  options.factor = factor;
  options.kind = kind;
  return options;
}

// f as the authors' code adapts it: 1.000001 squared until e^eps lies within the first h/4 buckets.
double paper_code_factor(double epsilon, int64_t half) {
  double ln_f = std::log(1.000001);
  while (std::ceil(epsilon / ln_f) > static_cast<double>(half) / 4.0) ln_f *= 2.0;
  return std::exp(ln_f);
}

}  // namespace

TEST_CASE("PrivacyBuckets forward equals an independent long-double bucketing", "[privacy-buckets]") {
  std::mt19937_64 rng(20240611);
  for (const double spread : {0.05, 0.2, 1.0}) {
    for (const int64_t n : {1, 2, 3, 7, 16}) {
      // h = 20 buckets of 0.1 nats cover |L| <= 2: the losses also reach both confinements.
      const int64_t h = 20;
      const double factor = std::exp(0.1), epsilon = 0.45;
      const LogPair pair = random_pair(rng, spread);
      const Real ln_f = std::log(Real(factor));
      const ReferenceBuckets single =
          reference_single_release(to_vector(pair.log_first), to_vector(pair.log_second), ln_f, h);
      const ReferenceBuckets composed = reference_self_compose(single, n, h);
      for (const auto kind : {PrivacyBucketsOptions::Kind::kAdp, PrivacyBucketsOptions::Kind::kPdp}) {
        PrivacyBucketsLoss loss(options_with(epsilon, n, 2 * h, factor, kind));
        const double value = loss.direction_delta(pair, 0).item<double>();
        const Real expected = reference_delta(composed, ln_f, epsilon, kind, h);
        INFO("spread " << spread << " n " << n << " " << loss.loss_name() << " value " << value << " reference "
                       << double(expected) << " (infinity " << double(composed.infinity) << ")");
        CHECK(std::abs(value - double(expected)) <= 1e-12 * double(expected));
      }
    }
  }
}

TEST_CASE("PrivacyBuckets ADP is an upper bound of the certified delta, with the errata's upward bias",
          "[privacy-buckets]") {
  // The benchmark Gaussian: sigma = 30 on [-500, 500], step 1/60, sensitivity 1 = 60 cells.
  const NoiseTable table = gaussian_table(Grid::symmetric(500.0, 1.0 / 60.0), 30.0);
  const LogPair pair = additive_pair(log_probabilities_of(table), 60).forward();
  PairSpecification specification;
  specification.sensitivity = 1.0;
  const PairFamily family = make_pair_family(table, specification);
  for (const int64_t n : {16, 128}) {
    const PairBounds certified = account(family, n, {});
    for (const double epsilon : {0.3, 0.5, 1.0}) {
      const double upper = certified.delta_upper(epsilon), lower = certified.delta_lower(epsilon);
      PrivacyBucketsLoss automatic(options_with(epsilon, n, 1000, 0.0, PrivacyBucketsOptions::Kind::kAdp));
      PrivacyBucketsLoss paper(
          options_with(epsilon, n, 1000, paper_code_factor(epsilon, 500), PrivacyBucketsOptions::Kind::kAdp));
      torch::NoGradGuard no_grad;
      const double automatic_delta = automatic.direction_delta(pair, 0).item<double>();
      const double paper_delta = paper.direction_delta(pair, 0).item<double>();
      const double paper_half_range = 500.0 * std::log(paper_code_factor(epsilon, 500));
      WARN(fmt::format(
          "n {} eps {}: certified [{:.6e}, {:.6e}]; PrivacyBuckets 2h = 1000: automatic (h ln f = {:.3f}) {:.6e} "
          "({:+.1f}%), "
          "authors' factor (h ln f = {:.3f}) {:.6e} ({:+.1f}%)",
          n, epsilon, lower, upper, 500.0 * automatic.log_factor(pair), automatic_delta,
          100.0 * (automatic_delta / upper - 1.0), paper_half_range, paper_delta, 100.0 * (paper_delta / upper - 1.0)));
      // Every loss rounded up, every confinement pessimistic: above the exact delta, hence above the certified
      // lower bound, and above the certified upper bound wherever the bracket is tight (it is not at delta
      // ~ 1e-14, where the accountant's tail allowance dominates).
      CHECK(automatic_delta >= lower);
      CHECK(paper_delta >= lower);
      if (upper - lower <= 1e-3 * upper) {
        CHECK(automatic_delta >= upper);
        CHECK(paper_delta >= upper);
      }
    }
  }
}

TEST_CASE("PrivacyBuckets PDP is at least ADP", "[privacy-buckets]") {
  // PDP counts every bucket above eps fully, ADP with the weight 1 - e^{eps - j ln f} <= 1.
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 5; ++trial) {
    const LogPair pair = random_pair(rng, 1.0);
    for (const int64_t n : {1, 4, 9}) {
      for (const double epsilon : {0.0, 0.2, 1.0, 3.0}) {
        PrivacyBucketsLoss adp(options_with(epsilon, n, 200, 0.0, PrivacyBucketsOptions::Kind::kAdp));
        PrivacyBucketsLoss pdp(options_with(epsilon, n, 200, 0.0, PrivacyBucketsOptions::Kind::kPdp));
        const double adp_delta = adp.direction_delta(pair, 0).item<double>();
        const double pdp_delta = pdp.direction_delta(pair, 0).item<double>();
        INFO("n " << n << " eps " << epsilon << " ADP " << adp_delta << " PDP " << pdp_delta);
        CHECK(pdp_delta >= adp_delta);
        if (epsilon > 0.0 && epsilon <= 1.0) CHECK(pdp_delta > adp_delta);  // buckets above eps hold mass
      }
    }
  }
  const NoiseTable table = gaussian_table(Grid::symmetric(40.0, 0.05), 4.0);
  const LogPair gaussian = additive_pair(log_probabilities_of(table), 20).forward();
  for (const double epsilon : {0.1, 0.5, 1.5}) {
    PrivacyBucketsLoss adp(options_with(epsilon, 32, 1000, 0.0, PrivacyBucketsOptions::Kind::kAdp));
    PrivacyBucketsLoss pdp(options_with(epsilon, 32, 1000, 0.0, PrivacyBucketsOptions::Kind::kPdp));
    CHECK(pdp.direction_delta(gaussian, 0).item<double>() > adp.direction_delta(gaussian, 0).item<double>());
  }
}

namespace {

// The gradient of the ADP loss at n = 2 derived by hand from the stated rules, for a pair given as
// (log first, log second) per outcome. With single-release buckets B (j = -h..h) and infinity w:
//   delta = 2w - w^2 + sum_{a,b} B(a) B(b) G(a + b),  G(k) = 1 (k > h), weight(k) (-h < k <= h), weight(-h) (k <= -h),
// so d delta/dB(a) = 2 sum_b B(b) G(a + b) and d delta/dw = 2 - 2w. Outcome i with x_i = ceil(L_i / ln f):
//   d delta/dp_i = g(-h) sL(x_i) + g_inf sH(x_i) + [x_i in (-h, h]] g(x_i),
//   d delta/dx_i = p_i [g(-h) sL'(x_i) + g_inf sH'(x_i) + sum_{j=-h+1}^{h} g(j) / (1 + 100 (x_i - j)^2)],
// sL(x) = smallerThan(x, -h + 1), sH(x) = smallerThan(h, x), dx_i/dL_i = 1 / ln f (straight-through ceil),
// and p_i = e^{log first_i}, L_i = log first_i - log second_i.
struct HandGradient {
  double delta;
  std::vector<double> d_log_first, d_log_second;
};

HandGradient hand_gradient(const std::vector<double>& log_first, const std::vector<double>& log_second, double ln_f,
                           double epsilon, int64_t h) {
  const auto kind = PrivacyBucketsOptions::Kind::kAdp;
  const ReferenceBuckets single = reference_single_release(log_first, log_second, ln_f, h);
  auto B = [&](int64_t j) { return single.finite[static_cast<size_t>(j + h)]; };
  auto G = [&](int64_t k) { return k > h ? Real(1) : reference_weight(std::max(k, -h), ln_f, epsilon, kind); };
  std::vector<Real> g(static_cast<size_t>(2 * h + 1), 0);
  for (int64_t a = -h; a <= h; ++a)
    for (int64_t b = -h; b <= h; ++b) g[static_cast<size_t>(a + h)] += 2 * B(b) * G(a + b);
  const Real g_inf = 2 - 2 * single.infinity;
  auto sigmoid_slope = [](Real z) { return sigmoid(z) * (1 - sigmoid(z)); };

  HandGradient hand{double(reference_delta(reference_self_compose(single, 2, h), ln_f, epsilon, kind, h)),
                    std::vector<double>(log_first.size(), 0.0), std::vector<double>(log_first.size(), 0.0)};
  for (size_t i = 0; i < log_first.size(); ++i) {
    if (std::isinf(log_first[i])) continue;
    const Real p = std::exp(Real(log_first[i]));
    if (std::isinf(log_second[i])) {
      hand.d_log_first[i] = double(p * g_inf);
      continue;
    }
    const Real x = std::ceil((Real(log_first[i]) - Real(log_second[i])) / ln_f);
    const Real z_low = -5 * (x + h - Real(0.5)), z_high = -5 * (h - x + Real(0.5));
    Real d_p = g[0] * sigmoid(z_low) + g_inf * sigmoid(z_high);
    if (x > -h && x <= h) d_p += g[static_cast<size_t>(x + h)];
    Real d_x = g[0] * (-5) * sigmoid_slope(z_low) + g_inf * 5 * sigmoid_slope(z_high);
    for (int64_t j = -h + 1; j <= h; ++j) d_x += g[static_cast<size_t>(j + h)] / (1 + 100 * (x - j) * (x - j));
    const Real d_loss = p * d_x / ln_f;
    hand.d_log_first[i] = double(p * d_p + d_loss);
    hand.d_log_second[i] = double(-d_loss);
  }
  return hand;
}

void check_against_hand_gradient(const std::vector<double>& log_first, const std::vector<double>& log_second,
                                 double ln_f, double epsilon, int64_t h) {
  torch::Tensor first = torch::tensor(log_first, torch::kDouble).requires_grad_(true);
  torch::Tensor second = torch::tensor(log_second, torch::kDouble).requires_grad_(true);
  PrivacyBucketsLoss loss(options_with(epsilon, 2, 2 * h, std::exp(ln_f), PrivacyBucketsOptions::Kind::kAdp));
  const torch::Tensor delta = loss.direction_delta({first, second}, 0);
  delta.backward();
  const HandGradient hand = hand_gradient(log_first, log_second, loss.log_factor({first, second}), epsilon, h);
  CHECK(delta.item<double>() == Approx(hand.delta).epsilon(1e-12));
  const std::vector<double> d_first = to_vector(first.grad()), d_second = to_vector(second.grad());
  double scale = 0.0;
  for (size_t i = 0; i < d_first.size(); ++i)
    scale = std::max({scale, std::abs(hand.d_log_first[i]), std::abs(hand.d_log_second[i])});
  for (size_t i = 0; i < d_first.size(); ++i) {
    INFO("outcome " << i << ": d/dlog first " << d_first[i] << " (hand " << hand.d_log_first[i] << "), d/dlog second "
                    << d_second[i] << " (hand " << hand.d_log_second[i] << ")");
    CHECK(std::isfinite(d_first[i]));
    CHECK(std::isfinite(d_second[i]));
    CHECK(std::abs(d_first[i] - hand.d_log_first[i]) <= 1e-12 * scale);
    CHECK(std::abs(d_second[i] - hand.d_log_second[i]) <= 1e-12 * scale);
  }
}

}  // namespace

TEST_CASE("PrivacyBuckets surrogate gradients match a hand derivation", "[privacy-buckets]") {
  // 11 buckets (h = 5) of 0.1 nats, eps = 0.25. Losses 0.23 (bucket 3), -0.45 (bucket -4 = -h + 1: the soft
  // lower confinement), 0.58 (bucket 6 = h + 1: the soft infinity), 2.33 (bucket 24: beyond the FFT window,
  // the multipole series), a distinguishing event, and an outcome impossible under first.
  const std::vector<double> masses = {0.3, 0.25, 0.2, 0.15, 0.1};
  const std::vector<double> losses = {0.23, -0.45, 0.58, 2.33};
  std::vector<double> log_first, log_second;
  for (size_t i = 0; i < losses.size(); ++i) {
    log_first.push_back(std::log(masses[i]));
    log_second.push_back(std::log(masses[i]) - losses[i]);
  }
  log_first.push_back(std::log(masses[4]));
  log_second.push_back(kMinusInfinity);
  log_first.push_back(kMinusInfinity);
  log_second.push_back(std::log(0.2));
  SECTION("tiny case, every surrogate") { check_against_hand_gradient(log_first, log_second, 0.1, 0.25, 5); }
  SECTION("the paper's literal factor: every index far outside the 1000 buckets") {
    check_against_hand_gradient(log_first, log_second, std::log(1.000001), 0.25, 500);
  }
}

TEST_CASE("PrivacyBuckets equal's backward is the full Lorentzian sum at every distance", "[privacy-buckets]") {
  // The backward switches from an FFT window (indices within 2h of the buckets) to a multipole series; both
  // must give sum_j g_j / (1 + 100 (x - j)^2) over j = -h+1 .. h, with nothing truncated.
  const int64_t h = 50;
  std::vector<double> indices;
  for (int64_t x = -4 * h; x <= 4 * h; ++x) indices.push_back(static_cast<double>(x));
  for (const double x : {-1e9, -123456.0, 1e4, 3e7}) indices.push_back(x);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> weights(static_cast<size_t>(2 * h)), masses(indices.size());
  double total_weight = 0.0;
  for (double& w : weights) {
    w = uniform(rng);
    total_weight += std::abs(w);
  }
  for (double& m : masses) m = 0.5 + uniform(rng) / 4;
  torch::Tensor index_tensor = torch::tensor(indices, torch::kDouble).requires_grad_(true);
  torch::Tensor mass_tensor = torch::tensor(masses, torch::kDouble).requires_grad_(true);
  (equal_bucket_masses(mass_tensor, index_tensor, h) * torch::tensor(weights, torch::kDouble)).sum().backward();
  const std::vector<double> d_indices = to_vector(index_tensor.grad()), d_masses = to_vector(mass_tensor.grad());
  for (size_t i = 0; i < indices.size(); ++i) {
    Real sum = 0, magnitude = 0;
    for (int64_t j = -h + 1; j <= h; ++j) {
      const Real d = Real(indices[i]) - Real(j);
      sum += weights[static_cast<size_t>(j + h - 1)] / (1 + 100 * d * d);
      magnitude += std::abs(weights[static_cast<size_t>(j + h - 1)]) / (1 + 100 * d * d);
    }
    const double in_bucket =
        indices[i] > -h && indices[i] <= h ? weights[static_cast<size_t>(indices[i] + h - 1)] : 0.0;
    // FFT window: absolute error ~ u log2(L) sum_j |g_j|; multipole series: relative to the terms' magnitude.
    const bool far = std::abs(indices[i] - 0.5) > 3 * h;
    const double tolerance = far ? 1e-13 * double(masses[i] * magnitude) : 1e-14 * total_weight;
    INFO("index " << indices[i] << " gradient " << d_indices[i] << " direct " << double(masses[i] * sum));
    CHECK(std::abs(d_indices[i] - double(masses[i] * sum)) <= tolerance);
    CHECK(d_masses[i] == in_bucket);
  }
}

TEST_CASE("PrivacyBuckets gradients are finite on tables with zeros", "[privacy-buckets]") {
  const NoiseTable table = truncated_gaussian_table(Grid::symmetric(6.0, 0.05), 1.5, 4.0);
  torch::Tensor log_p = log_probabilities_of(table).requires_grad_(true);
  for (const auto kind : {PrivacyBucketsOptions::Kind::kAdp, PrivacyBucketsOptions::Kind::kPdp}) {
    PrivacyBucketsLoss loss(options_with(0.5, 13, 1000, 0.0, kind));
    const torch::Tensor delta = loss.delta(additive_pair(log_p, 20), DirectionCombination::kSum);
    delta.backward();
    CHECK(std::isfinite(delta.item<double>()));
    CHECK(torch::isfinite(log_p.grad()).all().item<bool>());
    CHECK(log_p.grad().abs().sum().item<double>() > 0.0);
    log_p.grad().zero_();
  }
}

TEST_CASE("PrivacyBuckets infinity bucket is 1 - (1 - omega)^n when the losses stay in range", "[privacy-buckets]") {
  // Finite losses within +-0.05 nats, buckets of 0.02 nats (h ln f = 10): even 128 releases stay within
  // bucket 3 * 128 = 384 < h, and both confinements are sigmoid(<= -580) = 0. Then the infinity bucket holds
  // the composed distinguishing events only, and the buckets keep the total mass 1.
  const std::vector<double> first = {0.1, 0.2, 0.3, 0.15, 0.2, 0.05};
  const std::vector<double> losses = {0.05, -0.05, 0.0, 0.031, -0.02};
  std::vector<double> log_first, log_second;
  for (size_t i = 0; i < first.size(); ++i) {
    log_first.push_back(std::log(first[i]));
    log_second.push_back(i < losses.size() ? std::log(first[i]) - losses[i] : kMinusInfinity);
  }
  const double omega = first.back();
  const LogPair pair = log_pair(log_first, log_second);
  for (const int64_t n : {1, 2, 3, 16, 128}) {
    PrivacyBucketsLoss loss(options_with(0.3, n, 1000, std::exp(0.02), PrivacyBucketsOptions::Kind::kAdp));
    const PrivacyBuckets composed = self_compose(loss.single_release_buckets(pair, loss.log_factor(pair)), n);
    const double infinity = composed.infinity.item<double>();
    INFO("n " << n);
    CHECK(infinity == Approx(-std::expm1(static_cast<double>(n) * std::log1p(-omega))).epsilon(1e-12));
    CHECK(composed.finite.sum().item<double>() + infinity == Approx(1.0).epsilon(1e-12));
  }
}

TEST_CASE("PrivacyBuckets automatic factor follows the stated rule", "[privacy-buckets]") {
  const NoiseTable table = gaussian_table(Grid::symmetric(200.0, 0.1), 10.0);
  const LogPair pair = additive_pair(log_probabilities_of(table), 10).forward();
  // Single release of a Gaussian pair: loss ~ N(mu, 2 mu), mu = s^2 / (2 sigma^2) = 1/200 (up to binning).
  const double mu = 1.0 / 200.0;
  for (const int64_t n : {1, 16, 1024}) {
    for (const double epsilon : {0.1, 1.0}) {
      PrivacyBucketsLoss loss(options_with(epsilon, n, 1000, 0.0, PrivacyBucketsOptions::Kind::kAdp));
      const double nn = static_cast<double>(n);
      const double expected = (std::max(epsilon, nn * mu) + 2.0 * std::sqrt(nn * 2.0 * mu)) / 500.0;
      INFO("n " << n << " eps " << epsilon);
      CHECK(loss.log_factor(pair) == Approx(expected).epsilon(1e-3));
    }
  }
  PrivacyBucketsLoss literal(options_with(0.3, 1, 1000, 1.000001, PrivacyBucketsOptions::Kind::kAdp));
  CHECK(literal.log_factor(pair) == Approx(std::log(1.000001)).epsilon(1e-12));
}

TEST_CASE("PrivacyBuckets options are validated", "[privacy-buckets]") {
  auto rejects = [](PrivacyBucketsOptions options, const std::string& field) {
    try {
      options.validate();
    } catch (const InputError& error) {
      return std::string(error.what()).find(field) != std::string::npos;
    }
    return false;
  };
  PrivacyBucketsOptions options;
  CHECK_NOTHROW(options.validate());
  options.epsilon = -0.1;
  CHECK(rejects(options, "epsilon"));
  options = {};
  options.compositions = 0;
  CHECK(rejects(options, "compositions"));
  options = {};
  options.buckets = 999;
  CHECK(rejects(options, "buckets"));
  options.buckets = 0;
  CHECK(rejects(options, "buckets"));
  options = {};
  options.factor = 1.0;
  CHECK(rejects(options, "factor"));
  options.factor = 0.5;
  CHECK(rejects(options, "factor"));
  CHECK_THROWS_AS(PrivacyBucketsLoss(options), InputError);
}
