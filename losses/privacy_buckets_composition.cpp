#include "losses/privacy_buckets_composition.hpp"

#include "core/partial_sums.hpp"
#include "losses/planned_fft.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace noiselearn {

namespace {

// The full linear convolution (length 4h + 1, index k <-> composed bucket k - 2h) by a real FFT of a size with
// no wrap-around.
torch::Tensor linear_convolution(const torch::Tensor& x, const torch::Tensor& y) {
  const int64_t length = x.size(0) + y.size(0) - 1;
  int64_t size = 1;
  while (size < length) size *= 2;
  const torch::Tensor fx = torch::fft::rfft(x, size);
  const torch::Tensor fy = x.is_same(y) ? fx : torch::fft::rfft(y, size);
  return torch::fft::irfft(fx * fy, size).narrow(0, 0, length);
}

}  // namespace

PrivacyBuckets compose(const PrivacyBuckets& first, const PrivacyBuckets& second) {
  const int64_t half = first.half();
  if (second.half() != half)
    throw std::invalid_argument("composed PrivacyBuckets must have the same number of buckets");
  const torch::Tensor full = linear_convolution(first.finite, second.finite);
  const torch::Tensor below = full.narrow(0, 0, half + 1).sum().unsqueeze(0);  // j in -2h .. -h
  const torch::Tensor inside = full.narrow(0, half + 1, 2 * half);             // j in -h+1 .. h
  const torch::Tensor beyond = full.narrow(0, 3 * half + 1, half).sum();       // j in h+1 .. 2h
  // A composed outcome is distinguishing when either release is: 1 - (1 - w1)(1 - w2).
  const torch::Tensor infinity = first.infinity + second.infinity - first.infinity * second.infinity + beyond;
  return {torch::cat({below, inside}), infinity};
}

PrivacyBuckets self_compose(const PrivacyBuckets& single, int64_t n) {
  if (n < 1) throw std::invalid_argument("the number of compositions must be at least 1");
  PrivacyBuckets power = single;
  PrivacyBuckets result;
  bool have_result = false;
  for (int64_t remaining = n; remaining > 0; remaining >>= 1) {
    if (remaining & 1) {
      result = have_result ? compose(result, power) : power;
      have_result = true;
    }
    if (remaining > 1) power = compose(power, power);
  }
  return result;
}

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The value of a one-element float64 CPU tensor without a dispatch (item() costs a tensor operation); else item().
double scalar_of(const torch::Tensor& t) {
  return t.device().is_cpu() && t.scalar_type() == torch::kDouble && t.numel() == 1 ? *t.data_ptr<double>()
                                                                                    : t.item<double>();
}

// The n-fold composition as one autograd function: the forward runs the same compositions as self_compose, recording
// each on a tape (the FFTs are the planned ones of planned_fft.hpp on the CPU: the same values up to rounding); the
// backward walks the tape in reverse. For one composition z = compose(x, y), with full = x * y (linear convolution,
// index k <-> composed bucket k - 2h):
//   d full[k] = dz[0] (k <= h), dz[k - h] (h < k <= 3h), dz_inf (k > 3h);
//   dx[i] = sum_k d full[k] y[k - i], a correlation: irfft(rfft(d full) conj(rfft(y))) on the same FFT size S >= 4h + 1
//   (the lags k - i in [-2h, -1] wrap to [S - 2h, S - 1], beyond y's support [0, 2h], so the cyclic correlation is
//   the linear one on [0, 2h]); dy likewise with x;
//   d x_inf = dz_inf (1 - y_inf), d y_inf = dz_inf (1 - x_inf).
struct Tape {
  struct Step {
    int64_t first, second, out;
  };
  std::vector<torch::Tensor> finite, infinity, spectrum;  // by value id; spectrum: rfft(finite, S), once
  std::vector<Step> steps;
  int64_t size = 0;  // S

  const torch::Tensor& spectrum_of(int64_t id) {
    if (!spectrum[static_cast<size_t>(id)].defined())
      spectrum[static_cast<size_t>(id)] = planned_rfft(finite[static_cast<size_t>(id)], size);
    return spectrum[static_cast<size_t>(id)];
  }
  int64_t add(torch::Tensor f, torch::Tensor inf) {
    finite.push_back(std::move(f));
    infinity.push_back(std::move(inf));
    spectrum.emplace_back();
    return static_cast<int64_t>(finite.size()) - 1;
  }
  int64_t compose(int64_t a, int64_t b) {
    const int64_t half = (finite[static_cast<size_t>(a)].size(0) - 1) / 2;
    const int64_t length = 4 * half + 1;
    const torch::Tensor& fa = spectrum_of(a);
    const torch::Tensor& fb = a == b ? fa : spectrum_of(b);
    const torch::Tensor full = planned_irfft(spectral_product(fa, fb, false), size).narrow(0, 0, length);
    if (full.device().is_cpu() && full.scalar_type() == torch::kDouble && full.is_contiguous()) {
      // The same values with fewer tensor operations (each costs microseconds of dispatch at this size): the two
      // sums in four partial sums, the copy and the scalar arithmetic in place, in the same IEEE operations as the
      // tensor expression below (whose sums torch orders its own way: the same to rounding).
      const double* x = full.data_ptr<double>();
      const double below = sum_in_four_lanes(x, half + 1);
      const double beyond = sum_in_four_lanes(x + 3 * half + 1, half);
      torch::Tensor out = torch::empty({2 * half + 1}, full.options());
      double* o = out.data_ptr<double>();
      o[0] = below;
      std::copy(x + half + 1, x + 3 * half + 1, o + 1);
      const double ia = scalar_of(infinity[static_cast<size_t>(a)]), ib = scalar_of(infinity[static_cast<size_t>(b)]);
      const double sum = ia + ib, product = ia * ib, joint = sum - product;
      const int64_t id = add(std::move(out), torch::full({}, joint + beyond, full.options()));
      steps.push_back({a, b, id});
      return id;
    }
    const torch::Tensor below = full.narrow(0, 0, half + 1).sum().unsqueeze(0);
    const torch::Tensor inside = full.narrow(0, half + 1, 2 * half);
    const torch::Tensor beyond = full.narrow(0, 3 * half + 1, half).sum();
    const torch::Tensor& ia = infinity[static_cast<size_t>(a)];
    const torch::Tensor& ib = infinity[static_cast<size_t>(b)];
    const int64_t out = add(torch::cat({below, inside}), ia + ib - ia * ib + beyond);
    steps.push_back({a, b, out});
    return out;
  }
};

class SelfComposition : public torch::autograd::Function<SelfComposition> {
 public:
  static variable_list forward(AutogradContext* ctx, const torch::Tensor& finite, const torch::Tensor& infinity,
                               int64_t n) {
    Tape tape;
    const int64_t half = (finite.size(0) - 1) / 2;
    tape.size = 1;
    while (tape.size < 4 * half + 1) tape.size *= 2;
    int64_t power = tape.add(finite.detach(), infinity.detach()), result = -1;
    for (int64_t remaining = n; remaining > 0; remaining >>= 1) {
      if (remaining & 1) result = result >= 0 ? tape.compose(result, power) : power;
      if (remaining > 1) power = tape.compose(power, power);
    }
    c10::List<torch::Tensor> finite_list, infinity_list, spectrum_list;
    for (size_t id = 0; id < tape.finite.size(); ++id) {
      finite_list.push_back(tape.finite[id]);
      infinity_list.push_back(tape.infinity[id]);
      spectrum_list.push_back(tape.spectrum[id].defined() ? tape.spectrum[id] : torch::empty({0}));
    }
    std::vector<int64_t> steps;
    for (const Tape::Step& step : tape.steps) steps.insert(steps.end(), {step.first, step.second, step.out});
    ctx->saved_data["finite"] = finite_list;
    ctx->saved_data["infinity"] = infinity_list;
    ctx->saved_data["spectrum"] = spectrum_list;
    ctx->saved_data["steps"] = steps;
    ctx->saved_data["result"] = result;
    ctx->saved_data["size"] = tape.size;
    return {tape.finite[static_cast<size_t>(result)].clone(), tape.infinity[static_cast<size_t>(result)].clone()};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const c10::List<torch::Tensor> finite = ctx->saved_data["finite"].toTensorList();
    const c10::List<torch::Tensor> infinity = ctx->saved_data["infinity"].toTensorList();
    const c10::List<torch::Tensor> spectrum = ctx->saved_data["spectrum"].toTensorList();
    const std::vector<int64_t> steps = ctx->saved_data["steps"].toIntVector();
    const int64_t result = ctx->saved_data["result"].toInt(), size = ctx->saved_data["size"].toInt();
    const int64_t values = static_cast<int64_t>(finite.size());
    const torch::Tensor first = finite.get(0);
    const int64_t half = (first.size(0) - 1) / 2;
    std::vector<torch::Tensor> grad_finite(static_cast<size_t>(values)), grad_infinity(static_cast<size_t>(values));
    grad_finite[static_cast<size_t>(result)] = grad_outputs[0].defined() ? grad_outputs[0] : torch::zeros_like(first);
    grad_infinity[static_cast<size_t>(result)] =
        grad_outputs[1].defined() ? grad_outputs[1] : torch::zeros({}, first.options());
    const auto accumulate = [](torch::Tensor& into, const torch::Tensor& g) { into = into.defined() ? into + g : g; };
    if (first.device().is_cpu() && first.scalar_type() == torch::kDouble) {
      const auto g0 = grad_finite[static_cast<size_t>(result)].contiguous();
      return backward_cpu(steps, finite, infinity, spectrum, result, size, half,
                          std::vector<double>(g0.data_ptr<double>(), g0.data_ptr<double>() + g0.numel()),
                          grad_infinity[static_cast<size_t>(result)].item<double>());
    }
    for (size_t s = steps.size(); s >= 3; s -= 3) {
      const int64_t a = steps[s - 3], b = steps[s - 2], out = steps[s - 1];
      const torch::Tensor dz = grad_finite[static_cast<size_t>(out)];
      const torch::Tensor dz_inf = grad_infinity[static_cast<size_t>(out)];
      if (!dz.defined()) continue;
      // d full: the collecting bucket's gradient below, the regular ones inside, the infinity's beyond.
      const torch::Tensor d_full = torch::cat(
          {dz.narrow(0, 0, 1).expand({half + 1}), dz.narrow(0, 1, 2 * half), dz_inf.reshape({1}).expand({half})});
      const torch::Tensor d_spectrum = planned_rfft(d_full, size);
      const torch::Tensor ia = infinity.get(static_cast<size_t>(a)), ib = infinity.get(static_cast<size_t>(b));
      const torch::Tensor da =
          planned_irfft(d_spectrum * spectrum.get(static_cast<size_t>(b)).conj(), size).narrow(0, 0, 2 * half + 1);
      if (a == b) {
        accumulate(grad_finite[static_cast<size_t>(a)], 2.0 * da);
        accumulate(grad_infinity[static_cast<size_t>(a)], 2.0 * dz_inf * (1.0 - ia));
      } else {
        const torch::Tensor db =
            planned_irfft(d_spectrum * spectrum.get(static_cast<size_t>(a)).conj(), size).narrow(0, 0, 2 * half + 1);
        accumulate(grad_finite[static_cast<size_t>(a)], da);
        accumulate(grad_finite[static_cast<size_t>(b)], db);
        accumulate(grad_infinity[static_cast<size_t>(a)], dz_inf * (1.0 - ib));
        accumulate(grad_infinity[static_cast<size_t>(b)], dz_inf * (1.0 - ia));
      }
    }
    return {grad_finite[0], grad_infinity[0], torch::Tensor()};
  }

 private:
  // The backward above on float64 CPU tensors: the FFTs (planned) and spectral products as above, the rest (d full,
  // the accumulation, the infinity bucket's scalars) in place, in the same IEEE operations and order, with a third of
  // the tensor operations.
  static variable_list backward_cpu(const std::vector<int64_t>& steps, const c10::List<torch::Tensor>& finite,
                                    const c10::List<torch::Tensor>& infinity, const c10::List<torch::Tensor>& spectrum,
                                    int64_t result, int64_t size, int64_t half, std::vector<double> grad_result,
                                    double grad_infinity_result) {
    const size_t values = finite.size(), width = static_cast<size_t>(2 * half + 1);
    std::vector<std::vector<double>> grad_finite(values);  // empty: no gradient yet
    std::vector<double> grad_infinity(values, 0.0);
    std::vector<bool> has_infinity(values, false);
    grad_finite[static_cast<size_t>(result)] = std::move(grad_result);
    grad_infinity[static_cast<size_t>(result)] = grad_infinity_result;
    has_infinity[static_cast<size_t>(result)] = true;
    const auto options = finite.get(0).options();
    torch::Tensor d_full_t = torch::empty({4 * half + 1}, options);
    double* d_full = d_full_t.data_ptr<double>();
    const auto accumulate = [width](std::vector<double>& into, const double* g, double factor) {
      if (into.empty()) {
        into.resize(width);
        for (size_t i = 0; i < width; ++i) into[i] = factor * g[i];
      } else {
        for (size_t i = 0; i < width; ++i) into[i] = into[i] + factor * g[i];
      }
    };
    const auto accumulate_scalar = [&](size_t id, double g) {
      grad_infinity[id] = has_infinity[id] ? grad_infinity[id] + g : g;
      has_infinity[id] = true;
    };
    for (size_t s = steps.size(); s >= 3; s -= 3) {
      const size_t a = static_cast<size_t>(steps[s - 3]), b = static_cast<size_t>(steps[s - 2]),
                   out = static_cast<size_t>(steps[s - 1]);
      const std::vector<double>& dz = grad_finite[out];
      if (dz.empty()) continue;
      const double dz_inf = grad_infinity[out];
      std::fill(d_full, d_full + half + 1, dz[0]);
      std::copy(dz.begin() + 1, dz.end(), d_full + half + 1);
      std::fill(d_full + 3 * half + 1, d_full + 4 * half + 1, dz_inf);
      const torch::Tensor d_spectrum = planned_rfft(d_full_t, size);
      const double ia = scalar_of(infinity.get(a)), ib = scalar_of(infinity.get(b));
      const torch::Tensor da = planned_irfft(spectral_product(d_spectrum, spectrum.get(b), true), size).contiguous();
      if (a == b) {
        accumulate(grad_finite[a], da.data_ptr<double>(), 2.0);
        accumulate_scalar(a, 2.0 * dz_inf * (1.0 - ia));
      } else {
        const torch::Tensor db = planned_irfft(spectral_product(d_spectrum, spectrum.get(a), true), size).contiguous();
        accumulate(grad_finite[a], da.data_ptr<double>(), 1.0);
        accumulate(grad_finite[b], db.data_ptr<double>(), 1.0);
        accumulate_scalar(a, dz_inf * (1.0 - ib));
        accumulate_scalar(b, dz_inf * (1.0 - ia));
      }
    }
    torch::Tensor grad_first = torch::zeros({2 * half + 1}, options);
    if (!grad_finite[0].empty()) std::copy(grad_finite[0].begin(), grad_finite[0].end(), grad_first.data_ptr<double>());
    return {grad_first, torch::full({}, grad_infinity[0], options), torch::Tensor()};
  }
};

}  // namespace

PrivacyBuckets self_compose_fused(const PrivacyBuckets& single, int64_t n) {
  if (n < 1) throw std::invalid_argument("the number of compositions must be at least 1");
  const variable_list out = SelfComposition::apply(single.finite, single.infinity, n);
  return {out[0], out[1]};
}

}  // namespace noiselearn
