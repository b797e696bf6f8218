// sort: parallel integer radix sort of random 32-bit keys (PBBS integerSort).
#include <span>
#include <string>

#include "../common/inputs.hpp"
#include "../common/program.hpp"
#include "radix_sort.hpp"

using namespace kernels;

namespace {

const KernelInfo kInfo{
    .name = "sort",
    .summary = "parallel MSD radix sort of random integer keys (PBBS integerSort)",
    .n_help = "number of keys",
    .default_n = 100'000'000,
    .min_n = 1,
    .default_grain = 1 << 16,
    .grain_help = "keys per block of a distribution pass; ranges of 4*G keys are sorted sequentially",
    .extras = {{"bits", "32", "key width in bits, 1..32"}},
};

// A plausible bug that keeps the output sorted: one key overwritten by its
// predecessor. Only the permutation check can see it.
void inject_fault(std::vector<std::uint32_t>& keys) {
  for (std::size_t i = keys.size() / 2; i < keys.size(); ++i)
    if (i > 0 && keys[i] != keys[i - 1]) {
      keys[i] = keys[i - 1];
      return;
    }
  if (!keys.empty()) keys[0] ^= 1;  // all keys equal from the middle on
}

Outcome run(const Options& o, KernelTimer& timer) {
  const std::uint64_t bits = o.integer("bits");
  if (bits < 1 || bits > 32) throw UsageError("--bits must be in 1..32");
  std::vector<std::uint32_t> keys = random_keys(o.n, o.seed, static_cast<unsigned>(bits));
  const MultisetDigest input = multiset_digest(std::span<const std::uint32_t>(keys));

  timer.measure([&] { radix::parallel_sort(keys, static_cast<unsigned>(bits), o.grain); });

  if (o.inject_fault) inject_fault(keys);
  const std::span<const std::uint32_t> out(keys);
  return {"sort: n=" + std::to_string(o.n) + " bits=" + std::to_string(bits) +
              " checksum=" + fingerprint_sequence(out).hex(),
          check_sorted_permutation(out, input)};
}

}  // namespace

const Kernel kernels::kKernel{.info = kInfo, .run = run};
