#include "sampler/random_bits.hpp"

#include <pthread.h>

#include <mutex>
#include <stdexcept>

namespace noiselearn::sampler {

namespace detail {
std::atomic<uint64_t> fork_generation{0};
}  // namespace detail

namespace {

void count_fork_in_child() { detail::fork_generation.fetch_add(1, std::memory_order_relaxed); }

void watch_forks() {
  static std::once_flag registered;
  std::call_once(registered, [] {
    if (pthread_atfork(nullptr, nullptr, count_fork_in_child) != 0)
      throw std::runtime_error("RandomBits: pthread_atfork failed");
  });
}

}  // namespace

RandomBits::RandomBits(std::unique_ptr<EntropySource> source, size_t buffer_words)
    : source_(std::move(source)), buffer_(buffer_words == 0 ? 1 : buffer_words), next_(buffer_.size()) {
  if (!source_) throw std::invalid_argument("RandomBits: no entropy source");
  watch_forks();
  generation_ = detail::fork_generation.load(std::memory_order_relaxed);
}

void RandomBits::drop_after_fork() {
  next_ = buffer_.size();
  available_ = 0;
  reservoir_ = 0;
  generation_ = detail::fork_generation.load(std::memory_order_relaxed);
}

void RandomBits::refill() {
  source_->fill(buffer_.data(), buffer_.size());
  next_ = 0;
}

}  // namespace noiselearn::sampler
