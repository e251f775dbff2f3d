#include "solvers/vectorised_math.hpp"

#include <ATen/ATen.h>

#include <cstdint>

namespace noiselearn {

namespace {

at::Tensor view_of(std::vector<double>& x) { return at::from_blob(x.data(), {static_cast<int64_t>(x.size())}, at::kDouble); }

}  // namespace

void log_in_place(std::vector<double>& x) {
  if (!x.empty()) view_of(x).log_();
}

void exp_in_place(std::vector<double>& x) {
  if (!x.empty()) view_of(x).exp_();
}

void expm1_in_place(std::vector<double>& x) {
  if (!x.empty()) view_of(x).expm1_();
}

}  // namespace noiselearn
