// Integer sort (PBBS integerSort): most-significant-digit radix sort of 32-bit
// keys, 8-bit digits. A parallel pass distributes a range by its top digit
// (per-block counts, one scan, per-block scatter); each bucket is then sorted
// on the remaining digits as an independent task — recursively in parallel
// while it is large, by a sequential least-significant-digit sort once it
// fits the cache. The decomposition is written once over a scheduler
// (OmpTasks or TbbTasks); radix_omp.cpp and radix_tbb.cpp instantiate it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "../common/blocks.hpp"

namespace kernels::radix {

constexpr unsigned kDigitBits = 8;
constexpr std::size_t kBuckets = std::size_t{1} << kDigitBits;

inline unsigned digit(std::uint32_t key, unsigned shift) noexcept { return (key >> shift) & (kBuckets - 1); }

// Shift of the most significant digit of `bits`-bit keys.
inline unsigned top_shift(unsigned bits) noexcept { return ((bits - 1) / kDigitBits) * kDigitBits; }

// counts[d] += number of keys[lo, hi) whose digit at `shift` is d.
void count_digits(const std::uint32_t* keys, std::size_t lo, std::size_t hi, unsigned shift, std::size_t* counts);

// Writes keys[lo, hi) to out[offsets[digit]++], in order.
void scatter_digits(const std::uint32_t* keys, std::size_t lo, std::size_t hi, unsigned shift, std::size_t* offsets,
                    std::uint32_t* out);

// Sequential LSD sort of a[0, len) on the digits at shifts 0 .. `shift`,
// using b as scratch; the result ends in b if `into_b`, else in a.
void lsd_sort(std::uint32_t* a, std::uint32_t* b, std::size_t len, unsigned shift, bool into_b);

// Ranges of at most this many keys are sorted sequentially (they fit in L2).
inline std::size_t sequential_cutoff(std::size_t grain) noexcept { return 4 * grain; }

// Sorts a[0, len) on the digits at shifts `shift` .. 0; the result ends in b
// if `into_b`, else in a, the other buffer being scratch.
template <class Par>
void msd_sort(std::uint32_t* a, std::uint32_t* b, std::size_t len, unsigned shift, bool into_b, std::size_t grain) {
  if (len <= sequential_cutoff(grain)) {
    lsd_sort(a, b, len, shift, into_b);
    return;
  }
  const Blocks blocks(len, grain);
  BucketCounts counts(blocks.count(), kBuckets);
  Par::for_chunks(0, blocks.count(), 1, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t k = lo; k < hi; ++k) count_digits(a, blocks.begin(k), blocks.end(k), shift, counts.row(k));
  });
  const auto starts = counts.to_offsets();
  Par::for_chunks(0, blocks.count(), 1, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t k = lo; k < hi; ++k) scatter_digits(a, blocks.begin(k), blocks.end(k), shift, counts.row(k), b);
  });
  if (shift == 0) {  // fully sorted, in b
    if (!into_b)
      Par::for_chunks(0, len, grain, [&](std::size_t lo, std::size_t hi) { std::copy(b + lo, b + hi, a + lo); });
    return;
  }
  // Buckets are grouped so that a task holds about one sequential range.
  const std::size_t buckets_per_task = std::max<std::size_t>(1, kBuckets * sequential_cutoff(grain) / len);
  Par::for_chunks(0, kBuckets, buckets_per_task, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t d = lo; d < hi; ++d)
      msd_sort<Par>(b + starts[d], a + starts[d], starts[d + 1] - starts[d], shift - kDigitBits, !into_b, grain);
  });
}

template <class Par>
void sort_with(std::vector<std::uint32_t>& keys, unsigned bits, std::size_t grain) {
  // Not zero-filled: the first touch is the parallel scatter.
  const auto scratch = std::make_unique_for_overwrite<std::uint32_t[]>(keys.size());
  Par::run([&] { msd_sort<Par>(keys.data(), scratch.get(), keys.size(), top_shift(bits), false, grain); });
}

// Sorts `keys` (bits-bit values) with blocks of `grain` keys; defined by the
// variant (radix_omp.cpp, radix_tbb.cpp).
void parallel_sort(std::vector<std::uint32_t>& keys, unsigned bits, std::size_t grain);

}  // namespace kernels::radix
