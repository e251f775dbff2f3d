#include "losses/privacy_buckets_composition.hpp"

#include <stdexcept>

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
  if (second.half() != half) throw std::invalid_argument("composed PrivacyBuckets must have the same number of buckets");
  const torch::Tensor full = linear_convolution(first.finite, second.finite);
  const torch::Tensor below = full.narrow(0, 0, half + 1).sum().unsqueeze(0);  // j in -2h .. -h
  const torch::Tensor inside = full.narrow(0, half + 1, 2 * half);              // j in -h+1 .. h
  const torch::Tensor beyond = full.narrow(0, 3 * half + 1, half).sum();        // j in h+1 .. 2h
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

}  // namespace noiselearn
