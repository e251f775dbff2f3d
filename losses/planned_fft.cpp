#include "losses/planned_fft.hpp"

#include <complex>

#include "accounting/real_fft.hpp"
#include "losses/soft_pld.hpp"

namespace noiselearn {

namespace {

thread_local bool torch_fft_only = false;

bool planned(const torch::Tensor& t, torch::ScalarType dtype, int64_t size) {
  return !torch_fft_only && t.dim() == 1 && t.device().is_cpu() && t.scalar_type() == dtype &&
         !(t.requires_grad() && torch::GradMode::is_enabled()) && RealFft::supports(size) && size <= kLargestPlannedFft;
}

}  // namespace

TorchFftOnly::TorchFftOnly() : previous_(torch_fft_only) { torch_fft_only = true; }
TorchFftOnly::~TorchFftOnly() { torch_fft_only = previous_; }

int64_t planned_fft_size(int64_t length) {
  int64_t size = 4;
  while (size < length) size *= 2;
  return size <= kLargestPlannedFft ? size : smooth_fft_size(length);
}

torch::Tensor planned_rfft(const torch::Tensor& x, int64_t size) {
  if (!planned(x, torch::kDouble, size)) return torch::fft::rfft(x, size);
  const torch::Tensor input = x.contiguous();
  torch::Tensor spectrum = torch::empty({size / 2 + 1}, x.options().dtype(torch::kComplexDouble));
  // c10::complex<double> has std::complex<double>'s layout (two doubles, real first).
  RealFft::planned(size).forward(input.data_ptr<double>(), std::min(input.size(0), size),
                                 reinterpret_cast<std::complex<double>*>(spectrum.data_ptr()));
  return spectrum;
}

torch::Tensor planned_irfft(const torch::Tensor& spectrum, int64_t size) {
  if (!planned(spectrum, torch::kComplexDouble, size) || spectrum.size(0) != size / 2 + 1)
    return torch::fft::irfft(spectrum, size);
  const torch::Tensor input = spectrum.contiguous();
  torch::Tensor x = torch::empty({size}, spectrum.options().dtype(torch::kDouble));
  RealFft::planned(size).inverse(reinterpret_cast<const std::complex<double>*>(input.data_ptr()), x.data_ptr<double>(),
                                 size);
  return x;
}

torch::Tensor spectral_product(const torch::Tensor& x, const torch::Tensor& y, bool conjugate_y) {
  if (!(x.device().is_cpu() && y.device().is_cpu() && x.scalar_type() == torch::kComplexDouble &&
        y.scalar_type() == torch::kComplexDouble && x.is_contiguous() && y.is_contiguous() && x.sizes() == y.sizes() &&
        !x.is_conj() && !y.is_conj() && !((x.requires_grad() || y.requires_grad()) && torch::GradMode::is_enabled())))
    return conjugate_y ? x * y.conj() : x * y;
  torch::Tensor out = torch::empty_like(x);
  const double* u = reinterpret_cast<const double*>(x.data_ptr<c10::complex<double>>());
  const double* v = reinterpret_cast<const double*>(y.data_ptr<c10::complex<double>>());
  double* w = reinterpret_cast<double*>(out.data_ptr<c10::complex<double>>());
  const int64_t n = x.numel();
  const double sign = conjugate_y ? -1.0 : 1.0;  // conj(c + di) = c - di: an exact change of sign
  for (int64_t k = 0; k < n; ++k) {
    const double a = u[2 * k], b = u[2 * k + 1], c = v[2 * k], d = sign * v[2 * k + 1];
    w[2 * k] = a * c - b * d;
    w[2 * k + 1] = a * d + b * c;
  }
  return out;
}

}  // namespace noiselearn
