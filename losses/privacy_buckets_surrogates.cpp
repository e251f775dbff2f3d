#include "losses/privacy_buckets_surrogates.hpp"

#include "losses/planned_fft.hpp"

#include <algorithm>
#include <vector>

namespace noiselearn {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// equal's surrogate derivative 1 / (1 + d^2 / 0.01) = 1 / (1 + d^2 / w^2), w = 0.1 (Sommer et al., 3.4.2).
constexpr double kLorentzianHalfWidth = 0.1;
// Terms of the multipole series: its ratio is below 1/3 outside the FFT window, and 3^-34 < 1e-16.
constexpr int64_t kMultipoleTerms = 34;

class CeilStraightThrough : public torch::autograd::Function<CeilStraightThrough> {
 public:
  static torch::Tensor forward(AutogradContext* /*ctx*/, const torch::Tensor& x) { return torch::ceil(x); }
  static variable_list backward(AutogradContext* /*ctx*/, variable_list grad_outputs) { return {grad_outputs[0]}; }
};

int64_t fft_size_at_least(int64_t length) {
  int64_t size = 1;
  while (size < length) size *= 2;
  return size;
}

// c(x) = sum_j g_j k(x - j) over the buckets j = -h+1 .. h, for |x - 1/2| >= 3h + 1/2. With the bucket centre
// 1/2, u_j = j - 1/2 (|u_j| < h) and z = x - 1/2 - i w: k(x - j) = w Im 1/(z - u_j), and
// 1/(z - u) = sum_m u^m / z^(m+1), so c(x) = w Im[(1/z) sum_m T_m zeta^m] with the moments
// T_m = sum_j g_j (u_j / h)^m and zeta = h / z, |zeta| < 1/3 (Horner in zeta).
torch::Tensor lorentzian_correlation_far(const torch::Tensor& bucket_gradients, const torch::Tensor& x, int64_t half) {
  const auto options = bucket_gradients.options();
  const double h = static_cast<double>(half);
  const torch::Tensor scaled_offsets = (torch::arange(-half + 1, half + 1, options) - 0.5) / h;
  const torch::Tensor exponents = torch::arange(kMultipoleTerms, options).unsqueeze(1);
  const torch::Tensor moments = torch::matmul(scaled_offsets.unsqueeze(0).pow(exponents), bucket_gradients);
  const torch::Tensor z = torch::complex(x - 0.5, torch::full_like(x, -kLorentzianHalfWidth));
  const torch::Tensor zeta = h * torch::reciprocal(z);
  torch::Tensor series = torch::zeros_like(z) + moments[kMultipoleTerms - 1];
  for (int64_t m = kMultipoleTerms - 2; m >= 0; --m) series = series * zeta + moments[m];
  return kLorentzianHalfWidth * torch::imag(series / z);
}

// c(x) = sum_{j=-h+1}^{h} g_j / (1 + (x - j)^2 / w^2) for whole numbers x: the linear convolution of g with the
// kernel sampled at the integer offsets, by FFT, for x within 2h of the buckets (|x - j| <= 4h - 1), and the
// multipole series beyond.
torch::Tensor lorentzian_correlation(const torch::Tensor& bucket_gradients, const torch::Tensor& x, int64_t half) {
  const int64_t window = 2 * half;
  const int64_t reach = 2 * half - 1 + window;
  const int64_t length = bucket_gradients.size(0) + 2 * reach;
  const int64_t size = fft_size_at_least(length);
  // The kernel's spectrum depends on h and the options only: a training asks for the same one every epoch, so the
  // last one is kept (per thread), the same values as computing it again.
  struct KernelSpectrum {
    int64_t half = -1, size = 0;
    torch::TensorOptions options;
    torch::Tensor spectrum;
  };
  thread_local KernelSpectrum cached;
  const torch::TensorOptions options = bucket_gradients.options();
  if (!(cached.spectrum.defined() && cached.half == half && cached.size == size &&
        cached.options.device() == options.device() && cached.options.dtype() == options.dtype())) {
    torch::NoGradGuard no_grad;
    const torch::Tensor offsets = torch::arange(-reach, reach + 1, options);
    const torch::Tensor kernel = 1.0 / (1.0 + offsets.square() / (kLorentzianHalfWidth * kLorentzianHalfWidth));
    cached = {half, size, options, planned_rfft(kernel, size)};
  }
  // full[t] = c(x) at x = -h + 1 + t - reach.
  const torch::Tensor full =
      planned_irfft(spectral_product(planned_rfft(bucket_gradients, size), cached.spectrum), size).narrow(0, 0, length);
  if (x.device().is_cpu() && x.scalar_type() == torch::kDouble && x.is_contiguous() && x.dim() == 1 &&
      full.is_contiguous() && full.scalar_type() == torch::kDouble &&
      !(x.requires_grad() && torch::GradMode::is_enabled())) {
    // The same gather in one loop (a dozen tensor operations below): the near points read full, the far ones are
    // left to the series.
    const int64_t n = x.size(0);
    torch::Tensor correlation = torch::empty({n}, x.options());
    const double* xs = x.data_ptr<double>();
    const double* f = full.data_ptr<double>();
    double* out = correlation.data_ptr<double>();
    std::vector<int64_t> far;
    const double lowest = static_cast<double>(-half + 1 - window), highest = static_cast<double>(half + window);
    for (int64_t t = 0; t < n; ++t) {
      if (xs[t] >= lowest && xs[t] <= highest) {
        const double position =
            std::clamp(xs[t] + static_cast<double>(half - 1 + reach), 0.0, static_cast<double>(length - 1));
        out[t] = f[static_cast<int64_t>(position)];
      } else {
        out[t] = 0.0;
        far.push_back(t);
      }
    }
    if (!far.empty()) {
      const torch::Tensor far_t = torch::tensor(far, torch::TensorOptions().dtype(torch::kLong));
      correlation.index_copy_(0, far_t, lorentzian_correlation_far(bucket_gradients, x.index_select(0, far_t), half));
    }
    return correlation;
  }
  const torch::Tensor near =
      torch::logical_and(x >= static_cast<double>(-half + 1 - window), x <= static_cast<double>(half + window));
  const torch::Tensor positions =
      (x + static_cast<double>(half - 1 + reach)).clamp(0.0, static_cast<double>(length - 1)).to(torch::kLong);
  torch::Tensor correlation = torch::where(near, full.index_select(0, positions), torch::zeros_like(x));
  const torch::Tensor far = torch::nonzero(torch::logical_not(near)).squeeze(1);
  if (far.numel() > 0)
    correlation.index_copy_(0, far, lorentzian_correlation_far(bucket_gradients, x.index_select(0, far), half));
  return correlation;
}

class EqualBucketMasses : public torch::autograd::Function<EqualBucketMasses> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& masses, const torch::Tensor& indices,
                               int64_t half) {
    ctx->save_for_backward({masses, indices});
    ctx->saved_data["half"] = half;
    return torch::zeros({2 * half}, masses.options())
        .scatter_add(0, positions(indices, half), in_range_masses(masses, indices, half));
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const variable_list saved = ctx->get_saved_variables();
    const torch::Tensor& masses = saved[0];
    const torch::Tensor& indices = saved[1];
    const int64_t half = ctx->saved_data["half"].toInt();
    const torch::Tensor& bucket_gradients = grad_outputs[0];
    // Masses enter linearly: their gradient is the true one, that of the bucket their index falls in.
    const torch::Tensor grad_masses = torch::where(
        in_range(indices, half), bucket_gradients.index_select(0, positions(indices, half)), torch::zeros_like(masses));
    const torch::Tensor grad_indices = masses * lorentzian_correlation(bucket_gradients, indices, half);
    return {grad_masses, grad_indices, torch::Tensor()};
  }

 private:
  static torch::Tensor in_range(const torch::Tensor& indices, int64_t half) {
    return torch::logical_and(indices >= static_cast<double>(-half + 1), indices <= static_cast<double>(half));
  }
  static torch::Tensor positions(const torch::Tensor& indices, int64_t half) {
    return (indices + static_cast<double>(half - 1)).clamp(0.0, static_cast<double>(2 * half - 1)).to(torch::kLong);
  }
  static torch::Tensor in_range_masses(const torch::Tensor& masses, const torch::Tensor& indices, int64_t half) {
    return torch::where(in_range(indices, half), masses, torch::zeros_like(masses));
  }
};

}  // namespace

torch::Tensor ceil_straight_through(const torch::Tensor& x) { return CeilStraightThrough::apply(x); }

torch::Tensor equal_surrogate_correlation(const torch::Tensor& bucket_gradients, const torch::Tensor& x,
                                          int64_t half_buckets) {
  return lorentzian_correlation(bucket_gradients, x, half_buckets);
}

torch::Tensor smaller_than(const torch::Tensor& x, double y) {
  return torch::sigmoid(-kSmallerThanSlope * (x - y + 0.5));
}

torch::Tensor smaller_than(double x, const torch::Tensor& y) {
  return torch::sigmoid(-kSmallerThanSlope * (x - y + 0.5));
}

torch::Tensor equal_bucket_masses(const torch::Tensor& masses, const torch::Tensor& indices, int64_t half_buckets) {
  return EqualBucketMasses::apply(masses, indices, half_buckets);
}

}  // namespace noiselearn
