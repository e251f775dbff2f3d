#pragma once
// A planned real FFT of a power-of-two size N, for the hot loops that transform many short arrays of the same size
// (the losses' compositions: many transforms of 2,048 points an epoch at the paper's scale), and for the
// accountant's convolutions (convolution.cpp: plans of up to a few million points, made once per convolution with
// octant twiddles).
//
// Why our own: torch's CPU FFT (pocketfft) computes its twiddle factors on every call, most of its time at 2,048
// points; a kept plan saves it (bench_losses prints both). The plan is made once per size and thread (planned()).
//
// The transforms, with M = N / 2:
//   forward: X[k] = sum_{j < N} x[j] e^{-2 pi i j k / N}, k = 0 .. M (torch::fft::rfft(x, N); x zero-padded to N);
//   inverse: x[j] = (1 / N) sum_{k < N} X[k] e^{2 pi i j k / N}, X extended by X[N - k] = conj(X[k]), with the
//            imaginary parts of X[0] and X[M] ignored (torch::fft::irfft(X, N)).
// Method: the N real points as M complex ones z[m] = x[2m] + i x[2m+1], an iterative radix-2 complex FFT of size M
// (decimation in time, bit-reversed load), (two stages a pass), then the split E[k] = (Z[k] + conj Z[M-k]) / 2 (the
// even samples' DFT), O[k] = (Z[k] - conj Z[M-k]) / (2i) (the odd samples'), X[k] = E[k] + w^k O[k], w = e^{-2 pi i /
// N}; the inverse runs the same steps backwards.
//
// Accuracy: every twiddle factor is computed in long double and rounded once (within half an ulp), so by Higham
// (Accuracy and Stability of Numerical Algorithms, Thm 24.2) each of the log2 N levels (log2 M butterfly stages and
// the split) adds a relative l2 error of at most mu + gamma_4 (sqrt 2 + mu), about 6.2 u: within the allowance of
// 10 u per level that the accountant's FFT convolution assumes (convolution.cpp).
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

namespace noiselearn {

class RealFft {
 public:
  // How the twiddle factors are computed, both from long double sines and cosines rounded once:
  //   direct: every e^{-2 pi i k / N} from its own angle (what the losses' transforms have always used: their
  //           results stay the same bits);
  //   octant: only the angles up to pi / 4, the rest by exact symmetries: 8 times fewer long double calls (a plan
  //           of 2^20 points: about 210 -> 25 ms), and the small components near pi / 2 are more accurate. For
  //           large transforms made once (the accountant's convolutions).
  enum class Twiddles { direct, octant };

  explicit RealFft(int64_t size, Twiddles twiddles = Twiddles::direct);  // a power of two, at least 4

  // The plan for `size`, made on first use and kept for the thread.
  static const RealFft& planned(int64_t size);
  // An octant-twiddle plan for `size`, from the calling thread's most recently used ones (kept while they total at
  // most 2^22 points, about 75 MB; a larger one is made, used and dropped): for the accountant's convolutions, whose
  // sizes recur within a certificate (both bounds, every squaring level).
  static std::shared_ptr<const RealFft> recent_octant(int64_t size);
  static bool supports(int64_t size) { return size >= 4 && (size & (size - 1)) == 0; }
  // What the calling thread keeps between transforms for speed, in doubles: its scratch (that of the largest transform
  // it ran) and its recent octant plans (up to 2^22 points, about 18 bytes a point). Up to about 140 MB after a
  // 2^22-point certificate; release_thread_caches() frees both (for a long-lived process: Python's release_memory()).
  // The direct plans of planned() stay (the losses hold references to them; their sizes are at most 16,384).
  static int64_t thread_cache_doubles();
  static void release_thread_caches();

  int64_t size() const { return n_; }

  // x: `length` <= N values (the rest taken as 0); X: N / 2 + 1 values.
  void forward(const double* x, int64_t length, std::complex<double>* X) const;
  // X: N / 2 + 1 values; x receives the first `length` <= N values of the inverse.
  void inverse(const std::complex<double>* X, double* x, int64_t length) const;

 private:
  int64_t n_ = 0, m_ = 0;              // N and M = N / 2
  std::vector<int32_t> bit_reversed_;  // of 0 .. M - 1
  std::vector<double> twiddle_re_,
      twiddle_im_;                           // stage with half-length h: e^{-2 pi i j / (2h)}, j < h, at offset h - 1
  std::vector<double> split_re_, split_im_;  // e^{-2 pi i k / N}, k = 0 .. M / 2
};

}  // namespace noiselearn
