#include "losses/planned_fft.hpp"

#include <complex>

#include "accounting/real_fft.hpp"
#include "losses/soft_pld_loss.hpp"

namespace noiselearn {

namespace {

thread_local bool torch_fft_only = false;

bool planned(const torch::Tensor& t, torch::ScalarType dtype, int64_t size) {
  return !torch_fft_only && t.dim() == 1 && t.device().is_cpu() && t.scalar_type() == dtype && !(t.requires_grad() && torch::GradMode::is_enabled()) &&
         RealFft::supports(size) && size <= kLargestPlannedFft;
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
  if (!planned(spectrum, torch::kComplexDouble, size) || spectrum.size(0) != size / 2 + 1) return torch::fft::irfft(spectrum, size);
  const torch::Tensor input = spectrum.contiguous();
  torch::Tensor x = torch::empty({size}, spectrum.options().dtype(torch::kDouble));
  RealFft::planned(size).inverse(reinterpret_cast<const std::complex<double>*>(input.data_ptr()), x.data_ptr<double>(), size);
  return x;
}

}  // namespace noiselearn
