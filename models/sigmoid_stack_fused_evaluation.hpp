#pragma once
// The fused sigmoid stack's evaluation (models/sigmoid_stack_fused.hpp states its mathematics), in two passes over
// contiguous float64 arrays: the forward evaluation (sigmoid_stack_fused_forward.cpp), which leaves what the backward
// pass reads, and the hand-derived backward pass (sigmoid_stack_fused_backward.cpp). Internal to the model: the
// autograd function in sigmoid_stack_fused.cpp is their only caller.
#include <torch/torch.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/grid.hpp"

namespace noiselearn::fused_sigmoid_stack {

// The window pairs' e^{C (c_j - x_i)} restart from an exact exponential every kAnchorEvery pairs (see evaluate); even,
// so that the backward pass's two lanes split every anchored run as they split the window.
constexpr int64_t kAnchorEvery = 32;
static_assert(kAnchorEvery % 2 == 0);

// n doubles left uninitialised, for buffers whose every element is written before it is read: a std::vector would
// fill them with zeros first, a pass over up to 240 KB each (seven such buffers an epoch at the paper's scale).
class Scratch {
 public:
  explicit Scratch(int64_t n) : data_(new double[static_cast<size_t>(std::max<int64_t>(n, 1))]) {}
  double& operator[](size_t i) { return data_[i]; }
  const double& operator[](size_t i) const { return data_[i]; }
  double* data() { return data_.get(); }
  const double* data() const { return data_.get(); }

 private:
  std::unique_ptr<double[]> data_;
};

// ρ_i = e^{-C (x_{i+1} - x_i)} on the points x_i = x0 + h i, i < n (ρ_{n-1} = 1, unused), kept per thread for the
// last grid and slope asked: a training asks for the same every epoch.
const std::vector<double>& grid_step_ratios(double x0, double h, int64_t n, double C);

// log tail_i = C (x_i - c_k) + G_k, k = hi_i the first tail centre (C x_i + log 0 where none is): the forward pass's
// expression, which the backward pass evaluates again rather than keeping an array of it.
inline double log_tail_at(int64_t i, double x0, double h, double C, int64_t k, int64_t K, const double* c,
                          const double* G) {
  const double x = x0 + h * static_cast<double>(i);
  return C * (x - (k < K ? c[k] : 0.0)) + G[k];
}

inline torch::Tensor longs(int64_t n) { return torch::empty({n}, torch::TensorOptions().dtype(torch::kLong)); }
inline torch::Tensor ints(int64_t n) { return torch::empty({n}, torch::TensorOptions().dtype(torch::kInt)); }
inline torch::Tensor doubles(int64_t n) { return torch::empty({n}, torch::TensorOptions().dtype(torch::kDouble)); }

// What the backward pass reads, from the forward evaluation.
struct Evaluation {
  torch::Tensor order, c, w, start, end, hi, G, lin, anchors, log_lin, argmax, log_p;
  torch::Tensor shifted;    // e^{running_i - top} on the half: p_i = shifted_i / total
  double normaliser = 0.0;  // log p_i = log f_{argmax_i} - normaliser on the half
  double total = 0.0;
};

// The sizes and scalars of one evaluation: E grid points, the half's H (the points up to the centre), K centres, the
// grid x_i = x0 + h i and the slope C.
struct StackShape {
  int64_t E, H, K;
  double x0, h, C;
};

// The forward evaluation; false when a suffix sum is too small for the backward recursion.
bool evaluate(const Grid& grid, const torch::Tensor& A, const torch::Tensor& B, const torch::Tensor& F, double slope,
              std::vector<int64_t>* order_hint, Evaluation& out);

// dL/dA, dL/dB and dL/dF from dL/d log p (grad: E contiguous float64 values) through the forward evaluation.
struct StackGradients {
  torch::Tensor A, B, F;
};
StackGradients stack_gradients(const StackShape& shape, const torch::Tensor& A, const torch::Tensor& B,
                               const Evaluation& evaluation, const torch::Tensor& grad);

}  // namespace noiselearn::fused_sigmoid_stack
