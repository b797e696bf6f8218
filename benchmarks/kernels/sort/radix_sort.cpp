#include "radix_sort.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace kernels::radix {

void count_digits(const std::uint32_t* keys, std::size_t lo, std::size_t hi, unsigned shift, std::size_t* counts) {
  for (std::size_t i = lo; i < hi; ++i) ++counts[digit(keys[i], shift)];
}

void scatter_digits(const std::uint32_t* keys, std::size_t lo, std::size_t hi, unsigned shift, std::size_t* offsets,
                    std::uint32_t* out) {
  for (std::size_t i = lo; i < hi; ++i) out[offsets[digit(keys[i], shift)]++] = keys[i];
}

void lsd_sort(std::uint32_t* a, std::uint32_t* b, std::size_t len, unsigned shift, bool into_b) {
  std::uint32_t* src = a;
  std::uint32_t* dst = b;
  for (unsigned s = 0; s <= shift; s += kDigitBits) {
    std::array<std::size_t, kBuckets> offsets{};
    count_digits(src, 0, len, s, offsets.data());
    std::size_t sum = 0;
    for (std::size_t& o : offsets) sum += std::exchange(o, sum);
    scatter_digits(src, 0, len, s, offsets.data(), dst);
    std::swap(src, dst);
  }
  std::uint32_t* want = into_b ? b : a;
  if (src != want) std::copy(src, src + len, want);
}

}  // namespace kernels::radix
