#include "accounting/real_fft.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/avx2_clones.hpp"

namespace noiselearn {

namespace {

constexpr long double kPi = 3.141592653589793238462643383279502884L;

// Scratch for the M complex points, split into real and imaginary arrays (the butterflies vectorise over them).
struct Scratch {
  std::vector<double> re, im, pad;
  void reserve(int64_t n) {
    if (static_cast<int64_t>(re.size()) < n / 2) {
      re.resize(static_cast<size_t>(n / 2));
      im.resize(static_cast<size_t>(n / 2));
    }
  }
  double* padded(int64_t n) {
    if (static_cast<int64_t>(pad.size()) < n) pad.resize(static_cast<size_t>(n));
    return pad.data();
  }
};

Scratch& scratch() {
  thread_local Scratch buffers;
  return buffers;
}

}  // namespace

RealFft::RealFft(int64_t size, Twiddles twiddles) : n_(size), m_(size / 2) {
  if (!supports(size))
    throw std::invalid_argument("RealFft: the size must be a power of two, at least 4 (got " + std::to_string(size) +
                                ")");
  int bits = 0;
  while ((int64_t{1} << bits) < m_) ++bits;
  // rev(i) = rev(i / 2) / 2 with i's lowest bit as the top bit: one step an entry.
  bit_reversed_.assign(static_cast<size_t>(m_), 0);
  for (int64_t i = 1; i < m_; ++i)
    bit_reversed_[static_cast<size_t>(i)] =
        (bit_reversed_[static_cast<size_t>(i >> 1)] >> 1) | static_cast<int32_t>((i & 1) << (bits - 1));
  // The split's w^k = e^{-2 pi i k / N} = e^{-i pi k / M}, k = 0 .. M.
  split_re_.resize(static_cast<size_t>(m_ + 1));
  split_im_.resize(static_cast<size_t>(m_ + 1));
  if (twiddles == Twiddles::direct) {
    for (int64_t k = 0; k <= m_; ++k) {
      const long double angle = -2.0L * kPi * static_cast<long double>(k) / static_cast<long double>(n_);
      split_re_[static_cast<size_t>(k)] = static_cast<double>(cosl(angle));
      split_im_[static_cast<size_t>(k)] = static_cast<double>(sinl(angle));
    }
  } else {
    // cos and sin of theta = pi k / M for k <= M / 4 (theta <= pi / 4), the rest by the exact symmetries
    // cos(pi / 2 - t) = sin t, sin(pi / 2 - t) = cos t (k <= M / 2) and cos(pi - t) = -cos t, sin(pi - t) = sin t.
    const int64_t quarter = m_ / 4;
    std::vector<double> c(static_cast<size_t>(quarter + 1)), s(static_cast<size_t>(quarter + 1));
    for (int64_t k = 0; k <= quarter; ++k) {
      const long double angle = kPi * static_cast<long double>(k) / static_cast<long double>(m_);
      c[static_cast<size_t>(k)] = static_cast<double>(cosl(angle));
      s[static_cast<size_t>(k)] = static_cast<double>(sinl(angle));
    }
    const int64_t half = m_ / 2;
    for (int64_t k = 0; k <= m_; ++k) {
      const int64_t folded = k > half ? m_ - k : k;  // theta or pi - theta, in [0, pi / 2]
      const double cosine = folded <= quarter ? c[static_cast<size_t>(folded)] : s[static_cast<size_t>(half - folded)];
      const double sine = folded <= quarter ? s[static_cast<size_t>(folded)] : c[static_cast<size_t>(half - folded)];
      split_re_[static_cast<size_t>(k)] = k > half ? -cosine : cosine;
      split_im_[static_cast<size_t>(k)] = -sine;
    }
  }
  // Stage with half-length h (h = 1, 2, 4, .., M / 2): e^{-2 pi i j / (2h)} = e^{-i pi j / h} = w^{j M / h}, j < h,
  // at offset h - 1: entries of the split's table. (For the direct twiddles this is the same long double angle, bit
  // for bit, as computing -pi j / h: M / h is a power of two, so the products' roundings scale exactly.)
  twiddle_re_.assign(static_cast<size_t>(std::max<int64_t>(m_ - 1, 1)), 0.0);
  twiddle_im_.assign(twiddle_re_.size(), 0.0);
  for (int64_t h = 1; h < m_; h *= 2)
    for (int64_t j = 0; j < h; ++j) {
      const size_t k = static_cast<size_t>(j * (m_ / h));
      twiddle_re_[static_cast<size_t>(h - 1 + j)] = split_re_[k];
      twiddle_im_[static_cast<size_t>(h - 1 + j)] = split_im_[k];
    }
}

namespace {

std::vector<std::shared_ptr<const RealFft>>& recent_octant_plans() {
  thread_local std::vector<std::shared_ptr<const RealFft>> recent;
  return recent;
}

}  // namespace

int64_t RealFft::thread_cache_doubles() {
  const Scratch& s = scratch();
  int64_t doubles = static_cast<int64_t>(s.re.capacity() + s.im.capacity() + s.pad.capacity());
  for (const auto& plan : recent_octant_plans()) doubles += plan->size();
  return doubles;
}

void RealFft::release_thread_caches() {
  Scratch& s = scratch();
  std::vector<double>().swap(s.re);
  std::vector<double>().swap(s.im);
  std::vector<double>().swap(s.pad);
  std::vector<std::shared_ptr<const RealFft>>().swap(recent_octant_plans());
}

const RealFft& RealFft::planned(int64_t size) {
  thread_local std::map<int64_t, std::unique_ptr<RealFft>> plans;
  auto& plan = plans[size];
  if (!plan) plan = std::make_unique<RealFft>(size);
  return *plan;
}

std::shared_ptr<const RealFft> RealFft::recent_octant(int64_t size) {
  // Most recently used first; the plans kept hold at most kKeptPoints points in all (about 18 bytes a point).
  constexpr int64_t kKeptPoints = int64_t{1} << 22;
  std::vector<std::shared_ptr<const RealFft>>& recent = recent_octant_plans();
  for (size_t i = 0; i < recent.size(); ++i)
    if (recent[i]->size() == size) {
      std::rotate(recent.begin(), recent.begin() + static_cast<std::ptrdiff_t>(i),
                  recent.begin() + static_cast<std::ptrdiff_t>(i) + 1);
      return recent.front();
    }
  auto plan = std::make_shared<const RealFft>(size, Twiddles::octant);
  recent.insert(recent.begin(), plan);
  int64_t kept = 0;
  size_t keep = 0;
  while (keep < recent.size() && (keep == 0 || kept + recent[keep]->size() <= kKeptPoints))
    kept += recent[keep++]->size();
  recent.resize(keep);
  return plan;
}

namespace {

// Stages h and 2h of the radix-2 decimation-in-time butterflies, for one block of 4h points: stage h combines
// x[j] with x[j + h] (and x[j + 2h] with x[j + 3h]) by the twiddle t_j = e^{-+i pi j / h}, stage 2h combines x[j]
// with x[j + 2h] by u_j = e^{-+i pi j / (2h)} and x[j + h] with x[j + 3h] by e^{-+i pi (j + h) / (2h)} = -+i u_j
// (exact). sign = +1: the forward transform's minus; -1: the inverse's plus.
inline __attribute__((always_inline)) void radix4_block(double* r0, double* i0, int64_t h, const double* tr_,
                                                        const double* ti_, const double* ur_, const double* ui_,
                                                        double sign) {
  double* r1 = r0 + h;
  double* i1 = i0 + h;
  double* r2 = r0 + 2 * h;
  double* i2 = i0 + 2 * h;
  double* r3 = r0 + 3 * h;
  double* i3 = i0 + 3 * h;
#pragma GCC ivdep
  for (int64_t j = 0; j < h; ++j) {
    const double tr = tr_[j], ti = sign * ti_[j], ur = ur_[j], ui = sign * ui_[j];
    const double p1r = tr * r1[j] - ti * i1[j], p1i = tr * i1[j] + ti * r1[j];
    const double p3r = tr * r3[j] - ti * i3[j], p3i = tr * i3[j] + ti * r3[j];
    const double b0r = r0[j] + p1r, b0i = i0[j] + p1i, b1r = r0[j] - p1r, b1i = i0[j] - p1i;
    const double b2r = r2[j] + p3r, b2i = i2[j] + p3i, b3r = r2[j] - p3r, b3i = i2[j] - p3i;
    const double q2r = ur * b2r - ui * b2i, q2i = ur * b2i + ui * b2r;
    const double q3r = ur * b3r - ui * b3i, q3i = ur * b3i + ui * b3r;
    const double s3r = sign * q3i, s3i = -sign * q3r;  // -+i q3
    r0[j] = b0r + q2r;
    i0[j] = b0i + q2i;
    r2[j] = b0r - q2r;
    i2[j] = b0i - q2i;
    r1[j] = b1r + s3r;
    i1[j] = b1i + s3i;
    r3[j] = b1r - s3r;
    i3[j] = b1i - s3i;
  }
}

// The complex FFT of size m on bit-reversed input, in place: Z[k] = sum_m z[m] e^{-+2 pi i m k / M}, unnormalised.
// Two stages a pass over the arrays (radix4_block); an odd stage count starts with stage 1 alone (twiddle 1).
// Compiled twice, for AVX2 (four doubles a vector; no FMA, so the same roundings) and for any x86-64; the loader
// picks one.
NOISELEARN_AVX2_CLONES
void butterflies(double* re, double* im, int64_t m, const double* twiddle_re, const double* twiddle_im, double sign) {
  int stages = 0;
  while ((int64_t{1} << stages) < m) ++stages;
  int64_t h = 1;
  if (stages % 2 == 1) {
    for (int64_t b = 0; b < m; b += 2) {
      const double ar = re[b], ai = im[b], cr = re[b + 1], ci = im[b + 1];
      re[b] = ar + cr;
      im[b] = ai + ci;
      re[b + 1] = ar - cr;
      im[b + 1] = ai - ci;
    }
    h = 2;
  }
  for (; 4 * h <= m; h *= 4)  // stages h and 2h, both below m
    for (int64_t b = 0; b < m; b += 4 * h)
      radix4_block(re + b, im + b, h, twiddle_re + (h - 1), twiddle_im + (h - 1), twiddle_re + (2 * h - 1),
                   twiddle_im + (2 * h - 1), sign);
}

}  // namespace

void RealFft::forward(const double* x, int64_t length, std::complex<double>* X) const {
  if (length < 0 || length > n_) throw std::invalid_argument("RealFft::forward: more inputs than the transform's size");
  Scratch& s = scratch();
  s.reserve(n_);
  double* re = s.re.data();
  double* im = s.im.data();
  const double* input = x;
  if (length < n_) {  // zero-padded copy
    double* padded = s.padded(n_);
    std::copy(x, x + length, padded);
    std::fill(padded + length, padded + n_, 0.0);
    input = padded;
  }
  // z[m] = x[2m] + i x[2m+1], loaded in bit-reversed order.
  const int32_t* order = bit_reversed_.data();
  for (int64_t i = 0; i < m_; ++i) {
    const int64_t src = order[i];
    re[i] = input[2 * src];
    im[i] = input[2 * src + 1];
  }
  butterflies(re, im, m_, twiddle_re_.data(), twiddle_im_.data(), 1.0);
  // X[k] = E + w^k O, E = (Z[k] + conj Z[M-k]) / 2, O = (Z[k] - conj Z[M-k]) / (2i), Z[M] = Z[0]; at k = 0 and
  // k = M: X = Re Z[0] + Im Z[0] and Re Z[0] - Im Z[0].
  X[0] = {re[0] + im[0], 0.0};
  X[m_] = {re[0] - im[0], 0.0};
  const double* wr = split_re_.data();
  const double* wi = split_im_.data();
  for (int64_t k = 1; k < m_; ++k) {
    const double zr = re[k], zi = im[k], yr = re[m_ - k], yi = -im[m_ - k];  // Z[k] and conj Z[M-k]
    const double er = 0.5 * (zr + yr), ei = 0.5 * (zi + yi);
    const double orr = 0.5 * (zi - yi), oi = -0.5 * (zr - yr);  // d / (2i) = (di, -dr) / 2
    X[k] = {er + (wr[k] * orr - wi[k] * oi), ei + (wr[k] * oi + wi[k] * orr)};
  }
}

void RealFft::inverse(const std::complex<double>* X, double* x, int64_t length) const {
  if (length < 0 || length > n_)
    throw std::invalid_argument("RealFft::inverse: more outputs than the transform's size");
  Scratch& s = scratch();
  s.reserve(n_);
  double* re = s.re.data();
  double* im = s.im.data();
  // Z[k] = E + i O with E = (X[k] + conj X[M-k]) / 2, O = conj(w^k) (X[k] - conj X[M-k]) / 2; X[0] and X[M] are
  // taken as real, so Z[0] = (X[0] + X[M]) / 2 + i (X[0] - X[M]) / 2. Stored at bit-reversed positions, the input
  // order of the butterflies.
  const int32_t* order = bit_reversed_.data();
  re[0] = 0.5 * (X[0].real() + X[m_].real());
  im[0] = 0.5 * (X[0].real() - X[m_].real());
  const double* wr = split_re_.data();
  const double* wi = split_im_.data();
  for (int64_t k = 1; k < m_; ++k) {
    const double xr = X[k].real(), xi = X[k].imag();
    const double yr = X[m_ - k].real(), yi = -X[m_ - k].imag();  // conj X[M-k]
    const double er = 0.5 * (xr + yr), ei = 0.5 * (xi + yi);
    const double dr = 0.5 * (xr - yr), di = 0.5 * (xi - yi);
    const double orr = wr[k] * dr + wi[k] * di, oi = wr[k] * di - wi[k] * dr;  // conj(w^k) d
    const int64_t dst = order[k];
    re[dst] = er - oi;  // E + i O
    im[dst] = ei + orr;
  }
  butterflies(re, im, m_, twiddle_re_.data(), twiddle_im_.data(), -1.0);
  // x[2m] = Re z[m] / M, x[2m+1] = Im z[m] / M (M is a power of two: the scaling is exact).
  const double scale = 1.0 / static_cast<double>(m_);
  const int64_t pairs = length / 2;
  for (int64_t j = 0; j < pairs; ++j) {
    x[2 * j] = re[j] * scale;
    x[2 * j + 1] = im[j] * scale;
  }
  if (length % 2 == 1) x[length - 1] = re[pairs] * scale;
}

}  // namespace noiselearn
