#include "losses/soft_pld.hpp"

#include <cmath>
#include <limits>

namespace noiselearn {

int64_t smooth_fft_size(int64_t n) {
  int64_t best = std::numeric_limits<int64_t>::max();
  for (int64_t a = 1; a < 2 * n + 2; a *= 2)
    for (int64_t b = a; b < 2 * n + 2; b *= 3)
      for (int64_t c = b; c < 2 * n + 2; c *= 5)
        if (c >= n) best = std::min(best, c);
  return best;
}

namespace {

torch::Tensor convolve(const torch::Tensor& x, const torch::Tensor& y) {
  const int64_t length = x.size(0) + y.size(0) - 1;
  if (x.size(0) * y.size(0) <= 65536) {
    // Short: direct, via conv1d (flip for a true convolution).
    return torch::conv1d(x.view({1, 1, -1}), y.flip(0).view({1, 1, -1}), {}, 1, y.size(0) - 1).view({-1});
  }
  const int64_t size = smooth_fft_size(length);
  const torch::Tensor fx = torch::fft::rfft(x, size);
  const torch::Tensor fy = x.is_same(y) ? fx : torch::fft::rfft(y, size);
  return torch::fft::irfft(fx * fy, size).narrow(0, 0, length);
}

}  // namespace

void truncate_soft_pld(SoftPld& pld, double tail_mass) {
  int64_t low = 0, high = pld.masses.size(0);
  {
    torch::NoGradGuard guard;
    const torch::Tensor m = pld.masses.detach().to(torch::kCPU).contiguous();
    const double* data = m.data_ptr<double>();
    double low_tail = 0.0, high_tail = 0.0;
    while (low + 1 < high && low_tail + std::max(data[low], 0.0) <= tail_mass) low_tail += std::max(data[low++], 0.0);
    while (high - 1 > low && high_tail + std::max(data[high - 1], 0.0) <= tail_mass)
      high_tail += std::max(data[--high], 0.0);
  }
  if (low == 0 && high == pld.masses.size(0)) return;
  torch::Tensor kept = pld.masses.narrow(0, low, high - low);
  if (low > 0) {
    const torch::Tensor bottom = pld.masses.narrow(0, 0, low).sum();
    kept = torch::cat({(kept.narrow(0, 0, 1) + bottom), kept.narrow(0, 1, kept.size(0) - 1)});
  }
  if (high < pld.masses.size(0))
    pld.infinity_mass = pld.infinity_mass + pld.masses.narrow(0, high, pld.masses.size(0) - high).sum();
  pld.masses = kept;
  pld.first += low;
}

namespace {

SoftPld compose(const SoftPld& x, const SoftPld& y, double tail_mass) {
  SoftPld out;
  out.masses = torch::clamp_min(convolve(x.masses, y.masses), 0.0);
  out.first = x.first + y.first;
  // Infinite if either component is: omega_x T_y + F_x omega_y.
  const torch::Tensor finite_x = x.masses.sum(), finite_y = y.masses.sum();
  out.infinity_mass = x.infinity_mass * (finite_y + y.infinity_mass) + finite_x * y.infinity_mass;
  truncate_soft_pld(out, tail_mass);
  return out;
}

}  // namespace

SoftPld compose_soft_pld(const SoftPld& single, int64_t compositions, double tail_mass) {
  // Square-and-multiply over the bits of n.
  int64_t n = compositions;
  SoftPld power = single, result;
  bool have = false;
  while (n > 0) {
    if (n & 1) {
      result = have ? compose(result, power, tail_mass) : power;
      have = true;
    }
    n >>= 1;
    if (n > 0) power = compose(power, power, tail_mass);
  }
  return result;
}

torch::Tensor soft_pld_delta(const SoftPld& pld, double loss_step, double epsilon) {
  const torch::Tensor grid_losses =
      (torch::arange(pld.masses.size(0), pld.masses.options()) + static_cast<double>(pld.first)) * loss_step;
  const torch::Tensor weight = torch::clamp_min(-torch::expm1(epsilon - grid_losses), 0.0);
  return pld.infinity_mass + (weight * pld.masses).sum();
}

}  // namespace noiselearn
