// Block decomposition for the count → scan → scatter passes of radix sort,
// sample sort and the quickhull filter: each block counts its elements per
// bucket in parallel, one sequential scan turns the counts into write
// offsets, and each block scatters its elements in parallel.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace kernels {

class Blocks {
 public:
  Blocks(std::size_t n, std::size_t block_size) noexcept
      : n_(n), size_(std::max<std::size_t>(1, block_size)), count_((n + size_ - 1) / size_) {}
  std::size_t count() const noexcept { return count_; }
  std::size_t begin(std::size_t b) const noexcept { return b * size_; }
  std::size_t end(std::size_t b) const noexcept { return std::min(n_, (b + 1) * size_); }

 private:
  std::size_t n_, size_, count_;
};

// Per-block bucket counts, row-major: at(block, bucket).
class BucketCounts {
 public:
  BucketCounts(std::size_t blocks, std::size_t buckets) : buckets_(buckets), c_(blocks * buckets, 0) {}
  std::size_t* row(std::size_t block) noexcept { return c_.data() + block * buckets_; }
  std::size_t buckets() const noexcept { return buckets_; }

  // Turns the counts into exclusive write offsets (bucket-major, then block
  // order: the scatter is stable) and returns each bucket's start, with the
  // total as a final entry.
  std::vector<std::size_t> to_offsets() {
    const std::size_t blocks = buckets_ ? c_.size() / buckets_ : 0;
    std::vector<std::size_t> starts(buckets_ + 1);
    std::size_t sum = 0;
    for (std::size_t k = 0; k < buckets_; ++k) {
      starts[k] = sum;
      for (std::size_t b = 0; b < blocks; ++b) {
        const std::size_t c = c_[b * buckets_ + k];
        c_[b * buckets_ + k] = sum;
        sum += c;
      }
    }
    starts[buckets_] = sum;
    return starts;
  }

 private:
  std::size_t buckets_;
  std::vector<std::size_t> c_;
};

}  // namespace kernels
