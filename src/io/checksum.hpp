#pragma once
// The checksum noiselearn stores next to data it must not read once changed (a CSV described by its JSON, a
// checkpoint): FNV-1a, 64 bit, written "fnv1a64:<16 hex digits>". Not cryptographic: it guards against
// accidents (a hand edit, a truncated copy), not against an adversary.
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace noiselearn {

inline std::string fnv1a64_checksum(std::string_view bytes) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return fmt::format("fnv1a64:{:016x}", hash);
}

}  // namespace noiselearn
