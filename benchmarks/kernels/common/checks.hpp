// Building blocks of the kernels' self-checks: an order-dependent result
// fingerprint (the checksum printed on stdout), an order-independent multiset
// fingerprint (a sort must output a permutation of its input), and the seeded
// sample of queries that the brute-force references re-compute.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "random.hpp"

namespace kernels {

// Outcome of a self-check: ok, or the first problem found.
struct CheckResult {
  bool ok = true;
  std::string problem;

  static CheckResult pass() { return {}; }
  static CheckResult fail(std::string why) { return {false, std::move(why)}; }
};

// Order-dependent 64-bit digest of a result sequence.
class Fingerprint {
 public:
  void add(std::uint64_t v) noexcept { h_ = splitmix64(h_ ^ v) + 0x9e3779b97f4a7c15ULL; }
  void add_double(double v) noexcept { add(std::bit_cast<std::uint64_t>(v)); }
  std::uint64_t value() const noexcept { return h_; }
  std::string hex() const;

 private:
  std::uint64_t h_ = 0x6a09e667f3bcc908ULL;
};

// Order-independent digest of a multiset of 64-bit values: two sums of
// independent mixes. Equal digests for different multisets are a ~2^-64 event
// for non-adversarial inputs.
struct MultisetDigest {
  std::uint64_t sum_a = 0;
  std::uint64_t sum_b = 0;
  void add(std::uint64_t v) noexcept {
    sum_a += splitmix64(v);
    sum_b += splitmix64(v ^ 0xd1b54a32d192ed03ULL) * 0x2545f4914f6cdd1dULL;
  }
  bool operator==(const MultisetDigest&) const = default;
};

template <class T>
std::uint64_t value_bits(T v) noexcept {
  if constexpr (std::is_floating_point_v<T>) return std::bit_cast<std::uint64_t>(static_cast<double>(v));
  else return static_cast<std::uint64_t>(v);
}

template <class T>
MultisetDigest multiset_digest(std::span<const T> values) {
  MultisetDigest d;
  for (const T& v : values) d.add(value_bits(v));
  return d;
}

// The output of a sort: non-decreasing and a permutation of the input (whose
// digest was taken before sorting).
template <class T>
CheckResult check_sorted_permutation(std::span<const T> out, const MultisetDigest& input) {
  for (std::size_t i = 1; i < out.size(); ++i)
    if (out[i] < out[i - 1]) return CheckResult::fail("out of order at index " + std::to_string(i));
  if (!(multiset_digest(out) == input)) return CheckResult::fail("output is not a permutation of the input");
  return CheckResult::pass();
}

// Fingerprint of a sorted sequence: its values in order.
template <class T>
Fingerprint fingerprint_sequence(std::span<const T> values) {
  Fingerprint f;
  for (const T& v : values) f.add(value_bits(v));
  return f;
}

// `count` distinct-ish query indices in [0, n) chosen by the seed: the queries
// that a brute-force reference re-computes. Index 0 and n-1 are always in.
std::vector<std::size_t> check_sample(std::size_t n, std::size_t count, std::uint64_t seed);

}  // namespace kernels
