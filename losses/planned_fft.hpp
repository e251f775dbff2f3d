#pragma once
// torch::fft::rfft and irfft, through the planned real FFT (accounting/real_fft.hpp) where that is faster: 1-D
// float64 CPU tensors of a power-of-two size up to kLargestPlannedFft. Anything else (another device, dtype or size)
// goes to torch::fft, so the callers stay device-agnostic. The results are the same transforms, rounded
// differently (within a few ulps of the spectrum's largest entry); neither carries an autograd graph: for the
// fused losses' forward and backward passes, which run without one.
#include <torch/torch.h>

#include <cstdint>

namespace noiselearn {

// Above this, torch's transform is as fast (bench_losses, "FFT" section): the planned one's gain is the plan.
constexpr int64_t kLargestPlannedFft = 16384;

// The size the fused losses transform a linear convolution of `length` points at: the next power of two while
// the planned FFT takes it, else the smallest 2,3,5-smooth size (torch's fast sizes).
int64_t planned_fft_size(int64_t length);

torch::Tensor planned_rfft(const torch::Tensor& x, int64_t size);
torch::Tensor planned_irfft(const torch::Tensor& spectrum, int64_t size);

// x y, or x conj(y), pointwise on two spectra of the same shape: on contiguous complex128 CPU tensors one loop in the
// textbook formula (ac - bd, ad + bc), without the dispatch and the conjugate's materialisation of the tensor
// operations (microseconds each at a thousand points); elsewhere (and where a gradient is recorded) the tensor
// operations.
torch::Tensor spectral_product(const torch::Tensor& x, const torch::Tensor& y, bool conjugate_y = false);

// While one lives, this thread's planned_rfft and planned_irfft use torch::fft for every tensor: the yardstick of the
// benchmarks and of the tests that measure how far two correct FFTs' roundings move a result.
class TorchFftOnly {
 public:
  TorchFftOnly();
  ~TorchFftOnly();
  TorchFftOnly(const TorchFftOnly&) = delete;
  TorchFftOnly& operator=(const TorchFftOnly&) = delete;

 private:
  bool previous_;
};

}  // namespace noiselearn
