#include "sampler/entropy_source.hpp"

#include <sys/random.h>

#include <cerrno>
#include <system_error>

namespace noiselearn::sampler {

void OsEntropySource::fill(uint64_t* words, size_t count) {
  auto* bytes = reinterpret_cast<unsigned char*>(words);
  size_t remaining = count * sizeof(uint64_t);
  // getrandom may return fewer bytes than asked (requests above 32 MiB, or a signal): loop until full.
  while (remaining > 0) {
    const ssize_t got = getrandom(bytes, remaining, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "getrandom");
    }
    bytes += got;
    remaining -= static_cast<size_t>(got);
  }
}

void DeterministicTestEntropySource::fill(uint64_t* words, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    words[i] = z ^ (z >> 31);
  }
}

std::unique_ptr<EntropySource> make_os_entropy_source() { return std::make_unique<OsEntropySource>(); }

}  // namespace noiselearn::sampler
