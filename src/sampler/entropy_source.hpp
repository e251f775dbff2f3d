#pragma once
// Where the sampler's random bits come from.
//
// Production uses OsEntropySource: the kernel's CSPRNG through getrandom(2), which blocks only until the
// pool is initialised at boot and never returns predictable bytes afterwards. A seeded generator is needed
// to make tests reproducible; it is named DeterministicTestEntropySource so that nobody mistakes it for a
// source fit for privacy (its output is a function of a 64-bit seed, which an adversary can search).
#include <cstddef>
#include <cstdint>
#include <memory>

namespace noiselearn::sampler {

class EntropySource {
 public:
  virtual ~EntropySource() = default;
  // Fills `count` 64-bit words with independent uniform bits.
  virtual void fill(uint64_t* words, size_t count) = 0;
  // False for the test generator: the CLI warns, a service can refuse.
  virtual bool is_cryptographic() const = 0;
};

class OsEntropySource final : public EntropySource {
 public:
  // Throws std::system_error if getrandom fails for a reason other than an interrupted call.
  void fill(uint64_t* words, size_t count) override;
  bool is_cryptographic() const override { return true; }
};

// SplitMix64 (Steele, Lea and Flood 2014): statistically good, fast, and completely predictable.
class DeterministicTestEntropySource final : public EntropySource {
 public:
  explicit DeterministicTestEntropySource(uint64_t seed) : state_(seed) {}
  void fill(uint64_t* words, size_t count) override;
  bool is_cryptographic() const override { return false; }

 private:
  uint64_t state_;
};

std::unique_ptr<EntropySource> make_os_entropy_source();

}  // namespace noiselearn::sampler
