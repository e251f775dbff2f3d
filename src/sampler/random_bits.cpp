#include "sampler/random_bits.hpp"

#include <stdexcept>

namespace noiselearn::sampler {

RandomBits::RandomBits(std::unique_ptr<EntropySource> source, size_t buffer_words)
    : source_(std::move(source)), buffer_(buffer_words == 0 ? 1 : buffer_words), next_(buffer_.size()) {
  if (!source_) throw std::invalid_argument("RandomBits: no entropy source");
}

void RandomBits::refill() {
  source_->fill(buffer_.data(), buffer_.size());
  next_ = 0;
}

}  // namespace noiselearn::sampler
