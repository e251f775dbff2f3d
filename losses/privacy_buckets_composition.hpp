#pragma once
// PrivacyBuckets (Meiser and Mohammadi; Sommer et al., section 3.4.2): a privacy-loss distribution held in
// buckets of width ln f, and its composition.
//
// Bucket j in -h+1 .. h holds the mass of the losses L with f^{j-1} < e^L <= f^j, i.e. j = ceil(L / ln f): every
// loss is rounded UP to the bucket's upper edge j ln f. Bucket -h collects every loss <= -h ln f (rounded up to
// -h ln f), and the infinity bucket every loss > h ln f together with the distinguishing events. The paper's
// "2h buckets with indices from -h to h" are thus the 2h regular buckets (-h, h], plus the collecting bucket -h
// (2h + 1 finite entries) and the infinity bucket.
#include <torch/torch.h>

#include <cstdint>

namespace noiselearn {

struct PrivacyBuckets {
  torch::Tensor finite;    // [2h + 1]: buckets j = -h .. h (index j + h), float64
  torch::Tensor infinity;  // scalar: the infinity bucket

  int64_t half() const { return (finite.size(0) - 1) / 2; }
};

// The composition of two releases (Sommer et al., section 3.4.2):
//   buckets(j) = sum_i first(i) second(j - i)   for j in -h+1 .. h,
//   buckets(-h) = the same sum over j in -2h .. -h (every composed loss <= -h ln f, rounded up),
//   infinity = w1 + w2 - w1 w2 + the sum over j in h+1 .. 2h (composed losses beyond the range).
// The convolution is an FFT (float64, no wrap-around), differentiable.
PrivacyBuckets compose(const PrivacyBuckets& first, const PrivacyBuckets& second);

// The n-fold composition, n >= 1, by square-and-multiply (about 2 log2 n compositions). The confinement to
// [-h, h] after each composition makes the result depend on this order; it is pessimistic in every order.
PrivacyBuckets self_compose(const PrivacyBuckets& single, int64_t n);

// The same compositions as one autograd function with a hand-derived backward (a correlation by FFT per
// composition, on the spectra kept from the forward pass): the same values, the gradients to rounding, without
// an autograd graph of ~10 operations per composition. Tensor operations only, so on any device.
PrivacyBuckets self_compose_fused(const PrivacyBuckets& single, int64_t n);

}  // namespace noiselearn
