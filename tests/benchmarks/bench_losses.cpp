// Benchmark of the differentiable privacy losses, one section per loss:
//   1. The training losses, one direction, forward and forward + backward, fused against the tensor-operation
//      reference: PrivacyBuckets ADP and PDP (Sommer et al., 3.4.2-3.4.3; 2h = 1000 buckets, automatic factor and
//      the paper's literal f = 1.000001), the moments accountant and the soft PLD, on the paper's training setting,
//      E = 60,001 table points (Gaussian sigma = 30 on [-500, 500], step 1/60, s = 1 = 60 cells), n = 128.
//   2. Xiao et al.'s HRDP objective on a one-sided table.
//   3. FFT: the planned real FFT (accounting/real_fft.hpp, through losses/planned_fft.hpp) against torch::fft at the
//      losses' sizes, and the n = 128 PrivacyBuckets composition (forward + backward) with each.
// Run: ./build/tests/benchmarks/bench_losses [--threads N]
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "accounting/hybrid_renyi.hpp"
#include "bench_timing.hpp"
#include "core/baselines.hpp"
#include "core/heap_reuse.hpp"
#include "core/one_sided_baselines.hpp"
#include "losses/differentiable_pair.hpp"
#include "losses/moments_accountant_loss.hpp"
#include "losses/planned_fft.hpp"
#include "losses/privacy_buckets_composition.hpp"
#include "losses/privacy_buckets_loss.hpp"
#include "losses/renyi_loss.hpp"
#include "losses/renyi_objective.hpp"
#include "losses/soft_pld_loss.hpp"
#include "models/noise_model.hpp"

using namespace noiselearn;

namespace {

// Best and median after 5 warm-up runs: the best is the figure to compare, the median shows the noise of a
// shared machine.
template <typename F>
bench::Timing time_of(int repetitions, F&& f) {
  return bench::time_of(5, repetitions, f);
}

void benchmark_privacy_buckets() {
  std::printf(
      "1. The training losses at the paper's scale: E = 60,001 (Gaussian sigma 30 on [-500, 500], step 1/60), s = 60 "
      "cells,\n"
      "   n = 128, eps 0.3, one direction (A||B), best / median of 20 [ms]: the fused functions (the default) against "
      "the\n"
      "   tensor-operation reference (autograd graphs of the same mathematics)\n");
  const NoiseTable table = gaussian_table(Grid::symmetric(500.0, 1.0 / 60.0), 30.0);
  const torch::Tensor log_p = log_probabilities_of(table);
  std::printf("   %-36s %22s %22s %24s %14s\n", "loss", "fused fwd", "fused fwd+bwd", "reference fwd+bwd",
              "delta(0.3)");
  struct Setting {
    std::string label;
    std::function<std::shared_ptr<PrivacyLoss>(bool fused)> make;
  };
  const auto buckets = [](PrivacyBucketsOptions::Kind kind, double factor) {
    return [kind, factor](bool fused) {
      PrivacyBucketsOptions options;
      options.epsilon = 0.3;
      options.compositions = 128;
      options.buckets = 1000;
      options.factor = factor;
      options.kind = kind;
      options.fused = fused;
      return std::shared_ptr<PrivacyLoss>(std::make_shared<PrivacyBucketsLoss>(options));
    };
  };
  // Automatic factor, and the paper's literal f = 1.000001 (every index far outside the buckets: the Lorentzian
  // backward runs its multipole series for all 60,061 outcomes).
  const std::vector<Setting> settings = {
      {"privacy-buckets-adp", buckets(PrivacyBucketsOptions::Kind::kAdp, 0.0)},
      {"privacy-buckets-pdp", buckets(PrivacyBucketsOptions::Kind::kPdp, 0.0)},
      {"privacy-buckets-adp, f = 1.000001", buckets(PrivacyBucketsOptions::Kind::kAdp, 1.000001)},
      {"moments-accountant",
       [](bool fused) {
         MomentsAccountantLossOptions options;
         options.epsilon = 0.3;
         options.compositions = 128;
         options.fused = fused;
         return std::shared_ptr<PrivacyLoss>(std::make_shared<MomentsAccountantLoss>(options));
       }},
      {"soft-pld", [](bool fused) {
         SoftPldLossOptions options;
         options.epsilon = 0.3;
         options.compositions = 128;
         options.fused = fused;
         return std::shared_ptr<PrivacyLoss>(std::make_shared<SoftPldLoss>(options));
       }}};
  for (const Setting& setting : settings) {
    bench::Timing timings[3];
    double delta = 0.0;
    for (const bool fused : {true, false}) {
      const std::shared_ptr<PrivacyLoss> loss = setting.make(fused);
      torch::Tensor leaf = log_p.clone().requires_grad_(true);
      if (fused) {
        timings[0] = time_of(20, [&] {
          torch::NoGradGuard no_grad;
          delta = loss->direction_delta(additive_pair(leaf, 60).forward(), 0).item<double>();
        });
      }
      timings[fused ? 1 : 2] = time_of(20, [&] {
        leaf.mutable_grad() = torch::Tensor();
        loss->direction_delta(additive_pair(leaf, 60).forward(), 0).backward();
      });
    }
    std::printf("   %-36s %10.2f / %7.2f %12.2f / %7.2f %12.2f / %7.2f %16.6e\n", setting.label.c_str(),
                1e3 * timings[0].best, 1e3 * timings[0].median, 1e3 * timings[1].best, 1e3 * timings[1].median,
                1e3 * timings[2].best, 1e3 * timings[2].median, delta);
  }
}

// 2. Xiao et al.'s HRDP objective (loss.kind hrdp with Adam: delta = T omega + exp(T G - (alpha - 1) eps), both
// directions) with its gradient on a 30,001-point one-sided table (Vuvuzela size), next to the plain double loop of
// the HRDP accountant (accounting/hybrid_renyi, value only, both directions) as the yardstick.
void benchmark_hybrid_renyi() {
  std::printf(
      "\n2. HRDP objective, one-sided 30,001-point table (discrete TBL, 0 .. 30,000, scale 1000), T = 250,000, alpha "
      "28\n");
  const NoiseTable table = discrete_tbl_table(30000, 15000.0, 1000.0);
  const torch::Tensor log_p = torch::log(torch::tensor(table.probabilities(), torch::kDouble));
  RenyiLossOptions options;
  options.epsilon = std::log(2.0);
  options.compositions = 250000;
  options.initial_alpha = 28.0;
  options.hybrid_renyi = true;
  RenyiLoss loss(options);
  torch::Tensor leaf = log_p.clone().requires_grad_(true);
  const bench::Timing both = time_of(20, [&] {
    leaf.mutable_grad() = torch::Tensor();
    const DifferentiablePair pair = additive_pair(leaf, 1);
    (loss.direction_delta(pair.forward(), 0) + loss.direction_delta(pair.backward(), 1)).backward();
  });
  const bench::Timing reference = time_of(20, [&] {
    (void)hybrid_renyi_direction(table, 1, 28.0, true);
    (void)hybrid_renyi_direction(table, 1, 28.0, false);
  });
  std::printf(
      "   value + gradient (both directions): %.2f / %.2f ms (best / median of 20); the accountant's loop (value "
      "only): "
      "%.2f / %.2f ms\n",
      1e3 * both.best, 1e3 * both.median, 1e3 * reference.best, 1e3 * reference.median);
}

}  // namespace

void benchmark_fft() {
  std::printf(
      "\n3. FFT: planned real FFT against torch::fft (microseconds, best / median of 200 calls of 20), and the n = "
      "128\n"
      "   PrivacyBuckets composition (2h = 1000 buckets, FFT size 2048), forward + backward, with each\n");
  std::printf("   %8s %22s %22s %22s %22s\n", "size", "rfft planned", "rfft torch", "irfft planned", "irfft torch");
  torch::manual_seed(2);
  for (const int64_t n : {int64_t{2048}, int64_t{8192}, int64_t{16384}}) {
    const torch::Tensor x = torch::rand({n / 2 + 1}, torch::kDouble);
    const torch::Tensor spectrum = torch::fft::rfft(x, n);
    const auto per_call = [](auto&& f) {
      return bench::time_of(3, 200, [&] {
        for (int i = 0; i < 20; ++i) f();
      });
    };
    const bench::Timing ours = per_call([&] { planned_rfft(x, n); });
    const bench::Timing theirs = per_call([&] { torch::fft::rfft(x, n); });
    const bench::Timing ours_inverse = per_call([&] { planned_irfft(spectrum, n); });
    const bench::Timing theirs_inverse = per_call([&] { torch::fft::irfft(spectrum, n); });
    const auto text = [](const bench::Timing& t) {
      char buffer[64];
      std::snprintf(buffer, sizeof buffer, "%7.2f / %7.2f", 1e6 * t.best / 20, 1e6 * t.median / 20);
      return std::string(buffer);
    };
    std::printf("   %8lld %22s %22s %22s %22s\n", static_cast<long long>(n), text(ours).c_str(), text(theirs).c_str(),
                text(ours_inverse).c_str(), text(theirs_inverse).c_str());
  }
  const int64_t half = 500;
  const torch::Tensor finite = (torch::rand({2 * half + 1}, torch::kDouble) * 0.9 / (2 * half + 1)).requires_grad_();
  const torch::Tensor infinity = torch::full({}, 0.01, torch::kDouble).requires_grad_();
  const torch::Tensor weights = torch::randn({2 * half + 1}, torch::kDouble);
  const auto composition = [&] {
    const PrivacyBuckets out = self_compose_fused({finite, infinity}, 128);
    (weights * out.finite).sum().add(3.0 * out.infinity).backward();
  };
  bench::Timing planned{1e9, 1e9}, previous{1e9, 1e9};
  for (int round = 0; round < 3; ++round) {  // interleaved, the better of three kept
    const bench::Timing a = bench::time_of(3, 50, composition);
    bench::Timing b;
    {
      TorchFftOnly previous_version;
      b = bench::time_of(3, 50, composition);
    }
    planned = {std::min(planned.best, a.best), std::min(planned.median, a.median)};
    previous = {std::min(previous.best, b.best), std::min(previous.median, b.median)};
  }
  std::printf(
      "   composition n = 128, forward + backward: planned FFT %.0f / %.0f us; torch's FFT (the previous version) %.0f "
      "/ %.0f us\n",
      1e6 * planned.best, 1e6 * planned.median, 1e6 * previous.best, 1e6 * previous.median);
}

int main(int argc, char** argv) {
  noiselearn::keep_freed_heap_memory_for_reuse();  // as the CLI (core/heap_reuse.hpp)
  const int threads = bench::threads_argument(argc, argv, 2);
  at::set_num_threads(threads);
  std::printf("bench_losses (%d threads)\n\n", threads);
  benchmark_privacy_buckets();
  benchmark_hybrid_renyi();
  benchmark_fft();
  return 0;
}
