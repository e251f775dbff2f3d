// Benchmark of the certified accountant (issue "Foundation", section 3, speed):
//   1. convolution: FFT against the naive O(N^2) direct sum, on the same inputs;
//   2. a 60,001-point table, s = 1 (60 cells), n = 128: epsilon at delta = 1e-6, both bounds (target < 1 s);
//   3. n = 250,000 on a 30,001-point one-sided table (target < 10 s), with the bracket width and the analytic
//      Gaussian epsilon as the reference value;
//   4. small delta and many compositions (issue 7, item 3): the eps bracket of the untilted composition
//      (tilted_refinement off) next to the exponentially tilted one, each with its reference (the
//      analytic Gaussian, the exact binomial of randomized response) and its time;
//   5. the every-shift policy on the 60,001-point table (target <= 1 s).
// Run: ./build/tests/benchmarks/bench_accountant [--threads N]   (default 1, like the CLI)

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../accounting/computed_product_only.hpp"
#include "accounting/accountant_threads.hpp"
#include "accounting/certificate.hpp"
#include "accounting/convolution.hpp"
#include "accounting/dp_sgd.hpp"
#include "accounting/hybrid_renyi.hpp"
#include "accounting/mechanism_pair.hpp"
#include "accounting/pair_accountant.hpp"
#include "accounting/refinement.hpp"
#include "accounting/release_events.hpp"
#include "accounting/sampled_release.hpp"
#include "bench_timing.hpp"
#include "core/baselines.hpp"
#include "core/log_math.hpp"
#include "core/one_sided_baselines.hpp"

using namespace noiselearn;

namespace {

template <typename F>
double best_of(int repetitions, F&& f) {
  return bench::time_of(0, repetitions, f).best;
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / M_SQRT2); }

double analytic_gaussian_epsilon(double delta, double mu) {
  auto d = [mu](double eps) { return normal_cdf(-eps / mu + mu / 2) - std::exp(eps) * normal_cdf(-eps / mu - mu / 2); };
  double lo = 0.0, hi = 100.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (d(mid) > delta ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// A one-sided table: Gaussian bin masses centred in [0, R], truncated to the grid (all mass on x >= 0).
NoiseTable one_sided_gaussian(double range, double step, double sigma) {
  const Grid grid = Grid::spanning(0.0, range, step);
  std::vector<double> log_p(static_cast<size_t>(grid.size));
  for (int64_t i = 0; i < grid.size; ++i)
    log_p[static_cast<size_t>(i)] = log_gaussian_cell_mass(grid.x(i) - 0.5 * range, step, sigma);
  const double total = log_sum_exp(log_p);
  std::vector<double> p(log_p.size());
  for (size_t i = 0; i < p.size(); ++i) p[i] = std::exp(log_p[i] - total);
  const double sum = compensated_sum(p);
  for (double& v : p) v /= sum;
  return NoiseTable(grid, p, SupportKind::kOneSided);
}

void benchmark_convolution() {
  std::printf("1. convolution of two probability vectors of length N: FFT vs naive O(N^2) direct sum\n");
  std::printf("   %8s %14s %14s %9s %14s\n", "N", "naive [ms]", "FFT [ms]", "speed-up", "l1 difference");
  for (int n : {1000, 4000, 16000, 64000}) {
    std::vector<double> x(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) x[static_cast<size_t>(i)] = std::exp(-std::pow((i - n / 2.0) / (n / 10.0), 2));
    const double total = compensated_sum(x);
    for (double& v : x) v /= total;
    Convolution naive, fast;
    const double t_naive = best_of(n > 20000 ? 1 : 3, [&] { naive = convolve_direct(x, x); });
    const double t_fft = best_of(5, [&] { fast = convolve_fft(x, x); });
    double l1 = 0.0;
    for (size_t k = 0; k < naive.values.size(); ++k) l1 += std::abs(naive.values[k] - fast.values[k]);
    std::printf("   %8d %14.3f %14.3f %8.0fx %14.2e\n", n, 1e3 * t_naive, 1e3 * t_fft, t_naive / t_fft, l1);
  }
}

void benchmark_sixty_thousand() {
  std::printf("\n2. 60,001-point Gaussian table on [-500, 500], s = 1 (60 cells), n = 128, epsilon at delta = 1e-6\n");
  const double sigma = 10.0;
  const NoiseTable table = gaussian_table(Grid::symmetric(500.0, 1.0 / 60.0), sigma);
  PairSpecification specification;
  PairBounds bounds;
  double lower = 0, upper = 0;
  const double t = best_of(3, [&] {
    bounds = account(make_pair_family(table, specification), 128, AccountantOptions{});
    lower = bounds.epsilon_lower(1e-6);
    upper = bounds.epsilon_upper(1e-6);
  });
  const double analytic = analytic_gaussian_epsilon(1e-6, std::sqrt(128.0) / sigma);
  const size_t points = bounds.upper.first_to_second.masses.size();
  std::printf("   time %.3f s (target < 1 s); epsilon in [%.6f, %.6f], width %.2e; analytic Gaussian %.6f\n", t, lower,
              upper, upper - lower, analytic);
  // Yardstick: the same composition with naive convolutions (about 2 log2(n) of them at the final size).
  std::vector<double> probe(20000, 1.0 / 20000);
  const double t_probe = best_of(1, [&] { convolve_direct(probe, probe); });
  const double naive_estimate = t_probe * std::pow(static_cast<double>(points) / 20000.0, 2) * 7.0 * 2.0;
  std::printf(
      "   composed PLD: %zu points; the same 7 squarings per bound with naive convolution: ~%.0f s (estimated)\n",
      points, naive_estimate);
}

void benchmark_one_sided() {
  std::printf(
      "\n3. n = 250,000 releases of a 30,001-point one-sided table ([0, 300], step 0.01, Gaussian shape, sigma 5),\n"
      "   sensitivity 0.01 (1 cell), epsilon at delta = 1e-6\n");
  const double sigma = 5.0, sensitivity = 0.01;
  const int64_t n = 250000;
  const NoiseTable table = one_sided_gaussian(300.0, 0.01, sigma);
  PairSpecification specification;
  specification.sensitivity = sensitivity;
  PairBounds bounds;
  double lower = 0, upper = 0;
  const double t = best_of(1, [&] {
    bounds = account(make_pair_family(table, specification), n, AccountantOptions{});
    lower = bounds.epsilon_lower(1e-6);
    upper = bounds.epsilon_upper(1e-6);
  });
  const double analytic = analytic_gaussian_epsilon(1e-6, sensitivity * std::sqrt(static_cast<double>(n)) / sigma);
  const auto& pld = bounds.upper.first_to_second;
  std::printf("   time %.3f s (target < 10 s); epsilon in [%.6f, %.6f], width %.2e (%.2e relative)\n", t, lower, upper,
              upper - lower, (upper - lower) / upper);
  std::printf("   reference: analytic Gaussian mechanism %.6f (the table is its rounding to the grid)\n", analytic);
  std::printf("   final loss step %.3g (coarsened from 1e-4), %zu points, floating-point allowance %.2e\n",
              pld.loss_step, pld.masses.size(), pld.numerical_error);
}

// Randomized response with log-odds a: the n-fold loss is a (2K - n), K ~ Binomial(n, e^a / (1 + e^a)).
long double binomial_delta(double a, int64_t n, double eps) {
  const long double p = std::exp(static_cast<long double>(a)) / (1.0L + std::exp(static_cast<long double>(a)));
  long double largest = -INFINITY;
  std::vector<long double> logs;
  for (int64_t k = n; k >= 0; --k) {
    const long double loss = static_cast<long double>(a) * static_cast<long double>(2 * k - n);
    if (loss <= eps) break;
    logs.push_back(std::lgamma(n + 1.0L) - std::lgamma(k + 1.0L) - std::lgamma(n - k + 1.0L) + k * std::log(p) +
                   (n - k) * std::log1p(-p) + std::log(-std::expm1(static_cast<long double>(eps) - loss)));
    largest = std::max(largest, logs.back());
  }
  long double sum = 0.0L;
  for (long double l : logs) sum += std::exp(l - largest);
  return logs.empty() ? 0.0L : std::exp(largest) * sum;
}

void small_delta_case(const char* name, const PairFamily& family, int64_t n, double delta, double reference,
                      const char* reference_name) {
  std::printf("   %s, n = %lld, delta = %g; %s %.7f\n", name, static_cast<long long>(n), delta, reference_name,
              reference);
  for (bool refine : {false, true}) {
    AccountantOptions options;
    options.tilted_refinement = refine;
    CertificateRequest request;
    request.compositions = n;
    request.deltas = {delta};
    request.curve_points = 0;
    Certificate certificate;
    const double t = best_of(1, [&] { certificate = make_certificate(account(family, n, options), request, options); });
    const EpsilonAtDelta& e = certificate.epsilons.front();
    std::printf("     %-9s epsilon in [%.7f, %.7f]  relative width %9.2e  %6.2f s\n", refine ? "tilted" : "untilted",
                e.epsilon_lower, e.epsilon_upper, (e.epsilon_upper - e.epsilon_lower) / e.epsilon_upper, t);
  }
}

void benchmark_small_delta() {
  std::printf("\n4. small delta, many compositions: untilted (previous method) vs exponentially tilted certificate\n");
  const NoiseTable g60 = gaussian_table(Grid::symmetric(1000.0, 1.0 / 60.0), 60.0);
  small_delta_case("Gaussian sigma 60, 120,001 points", make_pair_family(g60, PairSpecification{}), 1024, 1e-9,
                   analytic_gaussian_epsilon(1e-9, std::sqrt(1024.0) / 60.0), "analytic");
  std::vector<double> p = g60.probabilities();
  p[10] *= 1.0 + 1e-12;  // not exactly symmetric any more: every shift, both signs, enveloped
  double total = 0.0;
  for (double v : p) total += v;
  for (double& v : p) v /= total;
  small_delta_case("the same, perturbed by 1e-12 (not symmetric)",
                   make_pair_family(NoiseTable(g60.grid(), p), PairSpecification{}), 128, 1e-6,
                   analytic_gaussian_epsilon(1e-6, std::sqrt(128.0) / 60.0), "analytic");
  const NoiseTable laplace = laplace_table(Grid::symmetric(60.0, 0.01), 1.0);
  small_delta_case("Laplace b = 1, step 0.01", make_pair_family(laplace, PairSpecification{}), 10000, 1e-9, NAN,
                   "(no closed form)");
  const double a = 0.1, q = std::exp(a) / (1.0 + std::exp(a));
  const PairFamily rr{PairKind::kAdditive,
                      {DominatingPair{Grid{0.0, 1.0, 2}, {q, 1.0 - q}, {1.0 - q, q}, "rr", {}, {}}},
                      1,
                      true,
                      "rr"};
  double lo = 0.0, hi = 1e4;
  for (int i = 0; i < 80; ++i) (binomial_delta(a, 100000, 0.5 * (lo + hi)) > 1e-9 ? lo : hi) = 0.5 * (lo + hi);
  small_delta_case("randomized response, log-odds 0.1 (lattice)", rr, 100000, 1e-9, hi, "exact binomial");
}

void benchmark_every_shift() {
  std::printf(
      "\n5. every-shift policy (60 shifts, both signs for an asymmetric table) on the 60,001-point Gaussian table,\n"
      "   n = 128, epsilon at delta = 1e-6 (target <= 1 s; the previous version: 1.0 s)\n");
  const NoiseTable table = gaussian_table(Grid::symmetric(500.0, 1.0 / 60.0), 10.0);
  PairSpecification specification;
  specification.shifts = ShiftPolicy::kAll;
  double lower = 0, upper = 0;
  const double t = best_of(2, [&] {
    const PairBounds bounds = account(make_pair_family(table, specification), 128, AccountantOptions{});
    lower = bounds.epsilon_lower(1e-6);
    upper = bounds.epsilon_upper(1e-6);
  });
  std::printf("   time %.3f s; epsilon in [%.6f, %.6f]\n", t, lower, upper);
}

}  // namespace

// Xiao et al.'s HRDP at Vuvuzela's scale, next to the certificate of the same table: which is faster, which tighter.
void benchmark_hybrid_renyi() {
  std::printf(
      "\n6. HRDP (Xiao et al. Def. 7, Thm 2) of a 30,001-point discrete TBL on 0 .. 30,000 (scale 1000), sensitivity\n"
      "   1, T = 250,000, epsilon at delta = 1e-4, next to the certificate of the same table\n");
  const NoiseTable table = discrete_tbl_table(30000, 15000.0, 1000.0);
  HybridRenyiEpsilon paper{}, fine{};
  std::vector<double> orders;
  for (int i = 101; i <= 2500; ++i) orders.push_back(i / 100.0);  // 1.01 .. 25 in steps of 0.01
  const double t_paper =
      best_of(3, [&] { paper = hybrid_renyi_epsilon(table, 1, 250000, 1e-4, paper_integer_alphas()); });
  const double t_fine = best_of(1, [&] { fine = hybrid_renyi_epsilon(table, 1, 250000, 1e-4, orders); });
  PairSpecification specification;
  PairBounds bounds;
  const double t_certificate =
      best_of(1, [&] { bounds = account(make_pair_family(table, specification), 250000, AccountantOptions{}); });
  std::printf("   HRDP, integer alpha 2 .. 25:     %.4f s, epsilon %.6f (alpha %g)\n", t_paper, paper.epsilon,
              paper.alpha);
  std::printf("   HRDP, alpha 1.01 .. 25 by 0.01: %.4f s, epsilon %.6f (alpha %g)\n", t_fine, fine.epsilon, fine.alpha);
  std::printf("   yardstick: certificate            %.4f s, epsilon in [%.6f, %.6f]\n", t_certificate,
              bounds.epsilon_lower(1e-4), bounds.epsilon_upper(1e-4));
}

// A Gaussian written as differences of its CDF (as other tools write one): symmetric and monotone only up to rounding.
NoiseTable gaussian_by_cdf_differences(double sigma, double step, int64_t half) {
  std::vector<double> p;
  for (int64_t i = -half; i <= half; ++i) {
    const double x = static_cast<double>(i) * step;
    p.push_back(std::max(0.0, normal_cdf((x + 0.5 * step) / sigma) - normal_cdf((x - 0.5 * step) / sigma)));
  }
  double total = 0.0;
  for (double v : p) total += v;
  for (double& v : p) v /= total;
  return NoiseTable(Grid::symmetric(static_cast<double>(half) * step, step), p);
}

// The default (several_pairs auto) decides per query: account() with the certificate's queries, beside account()
// without them (the programme wherever the epsilon bracket at delta 1e-3, 1e-6, 1e-10 is wide) and
// the envelope alone. The same certificate request in each; the bracket printed with each time. A table of one pair
// composed 1,024 times or more is composed again for the certificate's query when its bounds had none
// (composed_per_query), so for it the middle column is that route: the composition without queries, then the one for
// the query.
void default_case(const char* name, const PairFamily& family, int64_t n, const CertificateRequest& request) {
  const AccountantOptions automatic;
  AccountantOptions envelope;
  envelope.several_pairs = SeveralPairsMethod::kEnvelope;
  struct Way {
    const char* name;
    std::function<Certificate()> certify;
  };
  const std::vector<Way> ways{{"per query (now)", [&] { return certify_family(family, request, automatic); }},
                              {"without queries",
                               [&] {
                                 PairBounds bounds = account(family, n, automatic);
                                 return make_certificate(bounds, request, automatic);
                               }},
                              {"envelope only", [&] { return certify_family(family, request, envelope); }}};
  std::printf("%s, n = %lld:\n", name, static_cast<long long>(n));
  for (const auto& way : ways) {
    Certificate c;
    const double t = best_of(1, [&] { c = way.certify(); });
    const double upper = !c.epsilons.empty() ? c.epsilons.front().epsilon_upper : c.deltas.front().delta_upper;
    const double lower = !c.epsilons.empty() ? c.epsilons.front().epsilon_lower : c.deltas.front().delta_lower;
    std::printf("  %-18s %7.2f s   [%.7g, %.7g]  %.2g relative%s\n", way.name, t, lower, upper, (upper - lower) / upper,
                c.substitution_tv > 0.0 ? "  (symmetric copy)" : "");
  }
}

void benchmark_default_per_query() {
  std::printf(
      "The default decides per query (issue: 'a default that decides per query'); the previous default "
      "beside it\n");
  CertificateRequest at_delta;
  at_delta.curve_points = 0;
  PairSpecification shift6;
  shift6.sensitivity = 6.0;
  const NoiseTable g60 = gaussian_by_cdf_differences(60.0, 1.0, 30000);
  at_delta.compositions = 128;
  at_delta.deltas = {1e-6};
  default_case("Gaussian sigma 60 by CDF differences, 60,001 points, s = 6 cells, delta 1e-6",
               make_pair_family(g60, shift6), 128, at_delta);
  at_delta.compositions = 4;
  at_delta.deltas = {1e-3};
  default_case("the same, delta 1e-3", make_pair_family(g60, shift6), 4, at_delta);
  PairSpecification dpsgd;
  dpsgd.kind = PairKind::kSubsampledMixture;
  dpsgd.sensitivity = 1.0;
  dpsgd.sampling_rate = 256.0 / 60000.0;
  const NoiseTable g11 = gaussian_by_cdf_differences(1.1, 0.01, 1000);
  at_delta.compositions = 14063;
  at_delta.deltas = {1e-5};
  default_case("DP-SGD: Gaussian sigma 1.1 by CDF differences, step 0.01, q = 256/60000, delta 1e-5",
               make_pair_family(g11, dpsgd), 14063, at_delta);
  // The same table mirrored to be exactly symmetric, as `noiselearn baseline gaussian` writes it: no copy, no
  // allowance.
  std::vector<double> mirrored = g11.probabilities();
  for (size_t i = 0; i < mirrored.size() / 2; ++i) mirrored[mirrored.size() - 1 - i] = mirrored[i];
  double mirrored_total = 0.0;
  for (double v : mirrored) mirrored_total += v;
  for (double& v : mirrored) v /= mirrored_total;
  default_case("the same table exactly symmetric (as noiselearn baseline writes it)",
               make_pair_family(NoiseTable(g11.grid(), mirrored), dpsgd), 14063, at_delta);
  // A skewed table whose envelope bracket at its query is wide: the programme runs for it.
  const std::vector<double> skewed{0.14163192877177827,  0.026741812862291218, 0.2778018584097398, 0.1202540024123008,
                                   0.040171722941238476, 0.35673664672449895,  0.03666202787815256};
  double total = 0.0;
  for (double v : skewed) total += v;
  std::vector<double> p = skewed;
  for (double& v : p) v /= total;
  PairSpecification shift2;
  shift2.sensitivity = 2.0;
  CertificateRequest at_epsilon;
  at_epsilon.curve_points = 0;
  at_epsilon.compositions = 3;
  at_epsilon.epsilons = {1.0};
  default_case("skewed 7-point table, s = 2 cells, epsilon 1 (delta bracket)",
               make_pair_family(NoiseTable(Grid{0.0, 1.0, 7}, p), shift2), 3, at_epsilon);
  std::printf("\n");
}

// DP-SGD as practitioners ask it (accounting/dp_sgd.hpp: the Gaussian mechanism with Poisson sampling, no grid): the
// default (each composition by one FFT power) beside the same accounting by square-and-multiply (the same loss step,
// so the same discretisation), and the route through a discretised Gaussian table (the
// DP-SGD row of benchmark_default_per_query). The peers run from their sources: tests/benchmarks/peers.
void benchmark_mechanism_events() {
  std::printf(
      "DP-SGD without a grid (noiselearn account / nl.dp_sgd_epsilon): the default beside square-and-multiply\n");
  struct Case {
    const char* name;
    double noise_multiplier, rate;
    int64_t steps;
  };
  for (const Case& c :
       {Case{"Abadi et al.'s MNIST: sigma 1.1, q = 256/60000, 14,063 steps, delta 1e-5", 1.1, 256.0 / 60000.0, 14063},
        Case{"10^6 steps at q = 1e-3, sigma 1.0, delta 1e-5", 1.0, 1e-3, 1000000}}) {
    EpsilonBracket fast, slow;
    const double t_fast = best_of(1, [&] { fast = dp_sgd_epsilon(c.noise_multiplier, c.rate, c.steps, 1e-5); });
    // The yardstick: the same description and loss step, composed by square-and-multiply.
    const ReleaseDescription description = dp_sgd_description(c.noise_multiplier, c.rate, c.steps);
    AccountingQueries queries;
    queries.deltas = {1e-5};
    AccountantOptions options;
    const double t_slow = best_of(1, [&] {
      const PairBounds chosen = account_events(description, options, queries);  // the loss step the default picks
      AccountantOptions squaring = chosen.context.options;
      squaring.fft_power = false;
      PairBounds bounds = compose_bounds(
          event_release_bounds(description.events.front(), description.relation, squaring), c.steps, squaring, queries);
      bounds = refined_for_delta(std::move(bounds), 1e-5);
      slow = {bounds.epsilon_lower(1e-5), bounds.epsilon_upper(1e-5)};
    });
    std::printf(
        "  %s\n    default (FFT power): [%.6f, %.6f] (%.1e relative) in %.2f s; square-and-multiply: [%.6f, %.6f] "
        "(%.1e) in %.2f s (includes one default run to learn its loss step)\n",
        c.name, fast.lower, fast.upper, (fast.upper - fast.lower) / fast.upper, t_fast, slow.lower, slow.upper,
        (slow.upper - slow.lower) / slow.upper, t_slow);
  }
  NoiseCalibration calibration;
  const double t_calibrate =
      best_of(1, [&] { calibration = calibrate_noise_multiplier(2.0, 1e-5, 256.0 / 60000.0, 14063); });
  std::printf(
      "  calibration for epsilon 2 (MNIST setting): noise multiplier %.6f, certified [%.6f, %.6f], %d accountant "
      "runs, %.2f s\n\n",
      calibration.noise_multiplier, calibration.epsilon.lower, calibration.epsilon.upper, calibration.evaluations,
      t_calibrate);
}

// Unsampled Gaussian releases answered by Balle and Wang's closed form (closed_forms.hpp), beside the yardstick: the
// same releases composed on the loss grid by one FFT power and refined for the query, as account_events did before.
void benchmark_closed_forms() {
  std::printf("Unsampled Gaussian releases: the closed form beside the grid's composition\n");
  struct Case {
    const char* name;
    double noise_multiplier;
    int64_t releases;
    double delta;
  };
  for (const Case& c : {Case{"one release, multiplier 1, delta 1e-18", 1.0, 1, 1e-18},
                        Case{"100 releases, multiplier 5, delta 1e-12", 5.0, 100, 1e-12},
                        Case{"10^6 releases, multiplier 5, delta 1e-10", 5.0, 1000000, 1e-10}}) {
    ReleaseDescription description;
    ReleaseEvent event;
    event.mechanism = "gaussian";
    event.values = {{"noise_multiplier", c.noise_multiplier}};
    event.count = c.releases;
    description.events.push_back(event);
    EpsilonBracket closed, grid;
    const double t_closed = best_of(3, [&] {
      const PairBounds b = account_events(description, AccountantOptions{}, AccountingQueries{{}, {c.delta}});
      closed = {b.epsilon_lower(c.delta), b.epsilon_upper(c.delta)};
    });
    const double t_grid = best_of(1, [&] {
      AccountantOptions options;
      options.fft_power = true;
      const AccountingQueries queries{{}, {c.delta}};
      const PairBounds single = event_single_release(event, description.relation, options, queries);
      PairBounds b = compose_bounds(single, c.releases, single.context.options, queries);
      b = refined_for_delta(std::move(b), c.delta);
      grid = {b.epsilon_lower(c.delta), b.epsilon_upper(c.delta)};
    });
    std::printf("  %s\n    closed form: [%.9f, %.9f] (%.1e relative) in %.6f s; grid: [%.6f, %.6f] (%.1e) in %.2f s\n",
                c.name, closed.lower, closed.upper, (closed.upper - closed.lower) / closed.upper, t_closed, grid.lower,
                grid.upper, (grid.upper - grid.lower) / grid.upper, t_grid);
  }
  std::printf("\n");
}

// Noise on each of d coordinates (coordinate_product.hpp): the Gaussian's product in closed form (the Gaussian of
// multiplier m / sqrt(d)) beside the same product computed on a grid as for a mechanism without a closed form (the
// yardstick shows what the computed route costs and how wide its bracket is); then the Laplace per coordinate in the
// setting of experiments/dp-sgd-digits/per_coordinate.py.

void benchmark_coordinates() {
  std::printf("Noise on each of d coordinates (coordinates: d, L-infinity neighbours), epsilon at delta 1e-5\n");
  const double m = 40.0, q = 0.01;
  const int64_t d = 1000, n = 1000;
  AccountingQueries queries;
  queries.deltas = {1e-5};
  Sampling poisson;
  poisson.kind = SamplingKind::kPoisson;
  poisson.rate = q;
  EpsilonBracket closed, computed;
  // One event's certified epsilon at delta 1e-5, by the default.
  auto event_bracket = [&](const EventFields& fields) {
    ReleaseDescription description;
    description.events.push_back(parse_release_event(fields, "bench"));
    const PairBounds b = refined_for_delta(account_events(description, AccountantOptions{}, queries), 1e-5);
    return EpsilonBracket{b.epsilon_lower(1e-5), b.epsilon_upper(1e-5)};
  };
  const double t_closed = best_of(1, [&] {
    closed = event_bracket({{"mechanism", "gaussian"},
                            {"noise_multiplier", "40"},
                            {"coordinates", "1000"},
                            {"sampling_rate", "0.01"},
                            {"count", "1000"}});
  });
  const double t_computed = best_of(1, [&] {
    AccountantOptions options;
    options.fft_power = true;
    auto gaussian =
        std::make_shared<testing::ComputedProductOnly>(mechanism_kind("gaussian").make({{"noise_multiplier", m}}, {}));
    const PairBounds single = sampled_release_bounds(gaussian, poisson, RecordRelation::kAddOrRemove, options, d);
    const PairBounds b = refined_for_delta(compose_bounds(single, n, options, queries), 1e-5);
    computed = {b.epsilon_lower(1e-5), b.epsilon_upper(1e-5)};
  });
  std::printf(
      "  Gaussian m = 40 on 1000 coordinates, q = 0.01, 1000 releases:\n"
      "    closed form (m / sqrt(d)): [%.6f, %.6f] (%.1e relative) in %.2f s\n"
      "    computed product (yardstick): [%.6f, %.6f] (%.1e) in %.2f s\n",
      closed.lower, closed.upper, (closed.upper - closed.lower) / closed.upper, t_closed, computed.lower,
      computed.upper, (computed.upper - computed.lower) / computed.upper, t_computed);
  EpsilonBracket laplace;
  const double t_laplace = best_of(1, [&] {
    laplace = event_bracket({{"mechanism", "laplace"},
                             {"noise_multiplier", "283"},
                             {"coordinates", "4810"},
                             {"sampling_rate", "0.0445062587"},
                             {"count", "899"}});
  });
  std::printf(
      "  Laplace noise multiplier 283 on 4810 coordinates, q = 0.0445, 899 releases (per_coordinate.py): "
      "[%.6f, %.6f] (%.1e) in %.2f s\n\n",
      laplace.lower, laplace.upper, (laplace.upper - laplace.lower) / laplace.upper, t_laplace);
}

// Random allocation (random_allocation.hpp): each record in one of k steps per epoch, beside the yardstick of Poisson
// sampling at the same expected batch (rate 1/k, the same steps), which practitioners account such training with.
void benchmark_random_allocation() {
  std::printf("Random allocation (balls in bins) beside Poisson sampling at rate 1/k, delta 1e-5\n");
  struct Case {
    const char* name;
    const char* mechanism;
    const char* key;
    double value;
    int64_t k, epochs;
  };
  for (const Case& c :
       {Case{"Gaussian sigma 1, 1,000 steps per epoch, 10 epochs", "gaussian", "noise_multiplier", 1.0, 1000, 10},
        Case{"Gaussian sigma 1.1, 234 steps per epoch, 60 epochs (MNIST-like)", "gaussian", "noise_multiplier", 1.1,
             234, 60},
        Case{"discrete Gaussian sigma 2, 1,000 steps per epoch, 10 epochs", "discrete_gaussian", "sigma", 2.0, 1000,
             10}}) {
    auto bracket_of = [&](const EventFields& sampling) {
      EventFields fields{
          {"mechanism", c.mechanism}, {c.key, std::to_string(c.value)}, {"count", std::to_string(c.k * c.epochs)}};
      fields.insert(fields.end(), sampling.begin(), sampling.end());
      ReleaseDescription description;
      description.events.push_back(parse_release_event(fields, "bench"));
      AccountingQueries queries;
      queries.deltas = {1e-5};
      const PairBounds bounds = refined_for_delta(account_events(description, AccountantOptions{}, queries), 1e-5);
      return EpsilonBracket{bounds.epsilon_lower(1e-5), bounds.epsilon_upper(1e-5)};
    };
    EpsilonBracket allocation, poisson;
    const double t_allocation = best_of(2, [&] {
      allocation = bracket_of({{"steps_per_epoch", std::to_string(c.k)}});
    });
    const double t_poisson = best_of(2, [&] {
      poisson = bracket_of({{"sampling_rate", std::to_string(1.0 / static_cast<double>(c.k))}});
    });
    std::printf(
        "  %s\n    random allocation: [%.6f, %.6f] (%.1e relative) in %.2f s; Poisson at 1/k: [%.6f, %.6f] in "
        "%.2f s\n",
        c.name, allocation.lower, allocation.upper, (allocation.upper - allocation.lower) / allocation.upper,
        t_allocation, poisson.lower, poisson.upper, t_poisson);
  }
  std::printf("\n");
}

int main(int argc, char** argv) {
  const int threads = bench::threads_argument(argc, argv, 1);  // the CLI's default (README, "--threads and speed")
  set_accountant_threads(threads);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // figures appear as they are measured, also when redirected
  std::printf("bench_accountant (%d threads)\n\n", threads);
  if (argc > 1 && std::strcmp(argv[argc - 1], "--default-only") == 0) {
    benchmark_default_per_query();
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[argc - 1], "--dp-sgd-only") == 0) {
    benchmark_mechanism_events();
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[argc - 1], "--closed-forms-only") == 0) {
    benchmark_closed_forms();
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[argc - 1], "--coordinates-only") == 0) {
    benchmark_coordinates();
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[argc - 1], "--random-allocation-only") == 0) {
    benchmark_random_allocation();
    return 0;
  }
  benchmark_mechanism_events();
  benchmark_random_allocation();
  benchmark_closed_forms();
  benchmark_coordinates();
  benchmark_default_per_query();
  benchmark_convolution();
  benchmark_sixty_thousand();
  benchmark_one_sided();
  benchmark_small_delta();
  benchmark_every_shift();
  benchmark_hybrid_renyi();
  return 0;
}
