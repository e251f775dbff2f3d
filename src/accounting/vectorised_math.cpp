#include "accounting/vectorised_math.hpp"

#include <cmath>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

// Sleef (libsleef-dev), called directly: the same library and functions ATen's AVX2 kernels call for Tensor::log_,
// exp_ and expm1_ (Debian's libtorch links the system libsleef.so.3), so the values are the same bits as when this
// file went through ATen (tests/losses/test_vectorised_math_reference.cpp checks that). sleef.h declares its AVX2
// functions only when the whole file is compiled with -mavx2, which the baseline build must not be, so the three
// used are declared here, with Sleef's own signatures.
#if defined(__x86_64__) && defined(__GNUC__)
extern "C" {
__m256d Sleef_logd4_u10avx2(__m256d);
__m256d Sleef_expd4_u10avx2(__m256d);
__m256d Sleef_expm1d4_u10avx2(__m256d);
}
#endif

namespace noiselearn {

namespace {

enum class Function { log, exp, expm1 };

#if defined(__x86_64__) && defined(__GNUC__)
// Four doubles a call to one of Sleef's 1-ulp AVX2 functions; a tail of fewer than four is padded (with 1, in range
// for all three) and computed by the same function, as ATen does, so every element gets the same function.
template <__m256d (*function)(__m256d)>
__attribute__((target("avx2,fma"))) void apply_avx2(double* x, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) _mm256_storeu_pd(x + i, function(_mm256_loadu_pd(x + i)));
  if (i < n) {
    double tail[4] = {1.0, 1.0, 1.0, 1.0};
    std::memcpy(tail, x + i, sizeof(double) * static_cast<size_t>(n - i));
    _mm256_storeu_pd(tail, function(_mm256_loadu_pd(tail)));
    std::memcpy(x + i, tail, sizeof(double) * static_cast<size_t>(n - i));
  }
}
#endif

// Without AVX2, libm (within an ulp), as ATen's default kernels.
void apply_libm(double* x, int64_t n, Function f) {
  for (int64_t i = 0; i < n; ++i)
    x[i] = f == Function::log ? std::log(x[i]) : f == Function::exp ? std::exp(x[i]) : std::expm1(x[i]);
}

void apply(double* x, int64_t n, Function f) {
  if (n <= 0) return;
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (avx2) {
    switch (f) {
      case Function::log:
        return apply_avx2<Sleef_logd4_u10avx2>(x, n);
      case Function::exp:
        return apply_avx2<Sleef_expd4_u10avx2>(x, n);
      case Function::expm1:
        return apply_avx2<Sleef_expm1d4_u10avx2>(x, n);
    }
  }
#endif
  apply_libm(x, n, f);
}

}  // namespace

void log_in_place(double* x, int64_t n) { apply(x, n, Function::log); }
void exp_in_place(double* x, int64_t n) { apply(x, n, Function::exp); }
void expm1_in_place(double* x, int64_t n) { apply(x, n, Function::expm1); }

}  // namespace noiselearn
