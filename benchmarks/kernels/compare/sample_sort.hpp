// Comparison sort (PBBS comparisonSort): sample sort of doubles. Splitters
// come from a sorted random oversample; blocks classify their elements into
// buckets and count them in parallel, one scan gives the write offsets,
// blocks scatter in parallel, and every bucket is then sorted (std::sort) as
// an independent task. Written once over a scheduler (OmpTasks / TbbTasks);
// sample_omp.cpp and sample_tbb.cpp instantiate it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "../common/blocks.hpp"

namespace kernels::samplesort {

// The splitters: buckets - 1 sorted values chosen from an oversample of
// `oversample` elements per bucket at seeded random positions.
std::vector<double> choose_splitters(const std::vector<double>& data, std::size_t buckets, std::size_t oversample,
                                     std::uint64_t seed);

// Buckets for n keys: a power of two giving buckets of about `bucket_size`
// keys (one L2-sized std::sort), at least 2 and at most 4096.
std::size_t bucket_count(std::size_t n, std::size_t bucket_size);

// Bucket of x: the number of splitters <= x (equal keys share a bucket).
inline std::uint16_t bucket_of(const std::vector<double>& splitters, double x) noexcept {
  return static_cast<std::uint16_t>(std::upper_bound(splitters.begin(), splitters.end(), x) - splitters.begin());
}

// Classifies data[lo, hi) into bucket ids and counts them.
void classify_block(const double* data, std::size_t lo, std::size_t hi, const std::vector<double>& splitters,
                    std::uint16_t* bucket, std::size_t* counts);

// Writes data[lo, hi) to out[offsets[bucket[i]]++].
void scatter_block(const double* data, const std::uint16_t* bucket, std::size_t lo, std::size_t hi,
                   std::size_t* offsets, double* out);

constexpr std::size_t kOversample = 16;

template <class Par>
void sort_with(std::vector<double>& data, std::size_t grain, std::size_t bucket_size, std::uint64_t seed) {
  const std::size_t n = data.size();
  const std::size_t buckets = bucket_count(n, bucket_size);
  const std::vector<double> splitters = choose_splitters(data, buckets, kOversample, seed);
  // Not zero-filled: their first touch is the parallel classify / scatter.
  const auto bucket = std::make_unique_for_overwrite<std::uint16_t[]>(n);
  const auto out = std::make_unique_for_overwrite<double[]>(n);
  const Blocks blocks(n, grain);
  BucketCounts counts(blocks.count(), buckets);
  Par::run([&] {
    Par::for_chunks(0, blocks.count(), 1, [&](std::size_t lo, std::size_t hi) {
      for (std::size_t b = lo; b < hi; ++b)
        classify_block(data.data(), blocks.begin(b), blocks.end(b), splitters, bucket.get(), counts.row(b));
    });
    const std::vector<std::size_t> starts = counts.to_offsets();
    Par::for_chunks(0, blocks.count(), 1, [&](std::size_t lo, std::size_t hi) {
      for (std::size_t b = lo; b < hi; ++b)
        scatter_block(data.data(), bucket.get(), blocks.begin(b), blocks.end(b), counts.row(b), out.get());
    });
    // Each bucket task sorts its bucket and copies it back in place.
    Par::for_chunks(0, buckets, 1, [&](std::size_t lo, std::size_t hi) {
      for (std::size_t k = lo; k < hi; ++k) {
        std::sort(out.get() + starts[k], out.get() + starts[k + 1]);
        std::copy(out.get() + starts[k], out.get() + starts[k + 1], data.data() + starts[k]);
      }
    });
  });
}

// Sorts `data`; defined by the variant (sample_omp.cpp, sample_tbb.cpp).
void parallel_sort(std::vector<double>& data, std::size_t grain, std::size_t bucket_size, std::uint64_t seed);

}  // namespace kernels::samplesort
