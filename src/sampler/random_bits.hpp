#pragma once
// Uniform random bits and uniform integers, buffered over an EntropySource.
//
// One getrandom call per draw would cost a system call (~0.3 us) per draw; the buffer refills 64 KiB at a
// time so that the kernel is entered once per few thousand draws. The draw path is inline and non-virtual.
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "sampler/entropy_source.hpp"

namespace noiselearn::sampler {

namespace detail {
// Incremented in the child by a pthread_atfork handler. A forked child inherits the parent's buffered bits;
// drawing them would repeat the parent's noise (a web server's pre-forked workers would release correlated
// noise). Each RandomBits compares its generation with this one per draw (one relaxed load) and drops its
// buffer when a fork happened. A raw clone/fork system call that bypasses glibc's fork() is not seen.
extern std::atomic<uint64_t> fork_generation;
}  // namespace detail

class RandomBits {
 public:
  static constexpr size_t kBufferWords = 8192;  // 64 KiB

  // The bits come from `source`, which the object owns.
  explicit RandomBits(std::unique_ptr<EntropySource> source, size_t buffer_words = kBufferWords);

  // k uniform bits, 1 <= k <= 63. A word's leftover bits that do not fit k are dropped, never reused:
  // bits are independent, so dropping some keeps the rest uniform.
  uint64_t bits(int k) {
    if (__builtin_expect(generation_ != detail::fork_generation.load(std::memory_order_relaxed), 0)) drop_after_fork();
    if (available_ < k) {
      reservoir_ = next_word();
      available_ = 64;
    }
    const uint64_t value = reservoir_ & ((uint64_t{1} << k) - 1);
    reservoir_ >>= k;
    available_ -= k;
    return value;
  }

  // A uniform integer in [0, n), n >= 1, by rejection: draw the bit width of n - 1 and retry while the
  // value is >= n. Each accepted value comes from exactly one bit pattern, so there is no modulo bias;
  // fewer than 2 draws are needed on average.
  uint64_t uniform_below(uint64_t n) {
    if (n <= 1) return 0;
    const int width = bit_width(n - 1);
    for (;;) {
      const uint64_t value = width == 64 ? full_word() : bits(width);
      if (value < n) return value;
    }
  }

  bool is_cryptographic() const { return source_->is_cryptographic(); }

  static int bit_width(uint64_t value) { return value == 0 ? 0 : 64 - __builtin_clzll(value); }

 private:
  uint64_t next_word() {
    if (generation_ != detail::fork_generation.load(std::memory_order_relaxed)) drop_after_fork();
    if (next_ == buffer_.size()) refill();
    return buffer_[next_++];
  }
  uint64_t full_word() { return next_word(); }
  void refill();
  void drop_after_fork();

  std::unique_ptr<EntropySource> source_;
  std::vector<uint64_t> buffer_;
  size_t next_;
  uint64_t reservoir_ = 0;
  int available_ = 0;
  uint64_t generation_;
};

}  // namespace noiselearn::sampler
