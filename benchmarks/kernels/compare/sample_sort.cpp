#include "sample_sort.hpp"

#include <bit>

#include "../common/random.hpp"

namespace kernels::samplesort {

std::size_t bucket_count(std::size_t n, std::size_t bucket_size) {
  const std::size_t want = n / std::max<std::size_t>(1, bucket_size);
  return std::clamp<std::size_t>(std::bit_ceil(std::max<std::size_t>(want, 1)), 2, 4096);
}

std::vector<double> choose_splitters(const std::vector<double>& data, std::size_t buckets, std::size_t oversample,
                                     std::uint64_t seed) {
  const CounterRng rng(seed, Stream::splitters);
  std::vector<double> sample(buckets * oversample);
  for (std::size_t i = 0; i < sample.size(); ++i) sample[i] = data[rng.below(i, data.size())];
  std::sort(sample.begin(), sample.end());
  std::vector<double> splitters(buckets - 1);
  for (std::size_t j = 1; j < buckets; ++j) splitters[j - 1] = sample[j * oversample];
  return splitters;
}

void classify_block(const double* data, std::size_t lo, std::size_t hi, const std::vector<double>& splitters,
                    std::uint16_t* bucket, std::size_t* counts) {
  for (std::size_t i = lo; i < hi; ++i) {
    bucket[i] = bucket_of(splitters, data[i]);
    ++counts[bucket[i]];
  }
}

void scatter_block(const double* data, const std::uint16_t* bucket, std::size_t lo, std::size_t hi,
                   std::size_t* offsets, double* out) {
  for (std::size_t i = lo; i < hi; ++i) out[offsets[bucket[i]]++] = data[i];
}

}  // namespace kernels::samplesort
