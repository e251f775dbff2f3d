#include "accounting/vectorised_math.hpp"

#include <ATen/ATen.h>

namespace noiselearn {

namespace {

at::Tensor view_of(double* x, int64_t n) { return at::from_blob(x, {n}, at::kDouble); }

}  // namespace

void log_in_place(double* x, int64_t n) {
  if (n > 0) view_of(x, n).log_();
}

void exp_in_place(double* x, int64_t n) {
  if (n > 0) view_of(x, n).exp_();
}

void expm1_in_place(double* x, int64_t n) {
  if (n > 0) view_of(x, n).expm1_();
}

}  // namespace noiselearn
