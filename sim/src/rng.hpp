// The scheduler's randomness (victim selection): splitmix64, defined here so
// that a seed gives the same choices on every platform and standard library
// (std::uniform_int_distribution is implementation-defined).
#pragma once

#include <cstdint>

#include "rubato/sim/program.hpp"

namespace rubato::sim::detail {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) noexcept : state_(seed) {}
  std::uint64_t next() noexcept { return mix64(state_ += 0x9E3779B97F4A7C15ull); }
  // Uniform in [0, n) up to a bias below 2^-40 for the n a simulator uses.
  std::uint64_t below(std::uint64_t n) noexcept { return next() % n; }

 private:
  std::uint64_t state_;
};

}  // namespace rubato::sim::detail
