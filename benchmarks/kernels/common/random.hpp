// Counter-based random numbers: value i of a stream depends only on (seed,
// stream, i), so inputs are identical whatever the thread count and any
// generator can be split across tasks without changing its output.
#pragma once

#include <cstdint>

namespace kernels {

// SplitMix64 finaliser (Steele, Lea, Flood: "Fast splittable pseudorandom
// number generators", OOPSLA 2014).
constexpr std::uint64_t splitmix64(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Named streams keep the inputs of one program independent of each other
// (e.g. the triangles and the rays of `ray`).
enum class Stream : std::uint64_t {
  points = 1,
  keys,
  triangles,
  rays,
  samples,
  splitters,
  chase,
};

class CounterRng {
 public:
  CounterRng(std::uint64_t seed, Stream stream) noexcept
      : key_(splitmix64(splitmix64(seed) ^ static_cast<std::uint64_t>(stream))) {}

  std::uint64_t bits(std::uint64_t i) const noexcept { return splitmix64(key_ + i * 0x632be59bd9b4e019ULL); }

  // Uniform in [0, 1) with 53 random bits.
  double unit(std::uint64_t i) const noexcept { return static_cast<double>(bits(i) >> 11) * 0x1.0p-53; }

  // Uniform in [0, bound) (Lemire's multiply-shift; bias < bound / 2^64).
  std::uint64_t below(std::uint64_t i, std::uint64_t bound) const noexcept {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(bits(i)) * bound) >> 64);
  }

 private:
  std::uint64_t key_;
};

}  // namespace kernels
