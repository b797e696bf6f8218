// compare: parallel sample sort of random doubles (PBBS comparisonSort).
#include <span>
#include <string>

#include "../common/inputs.hpp"
#include "../common/program.hpp"
#include "sample_sort.hpp"

using namespace kernels;

namespace {

const KernelInfo kInfo{
    .name = "compare",
    .summary = "parallel sample sort of random doubles (PBBS comparisonSort)",
    .n_help = "number of keys",
    .default_n = 20'000'000,
    .min_n = 1,
    .default_grain = 1 << 15,
    .grain_help = "keys per block of the classify and scatter passes",
    .extras = {{"bucket", "32768", "target keys per bucket (one std::sort task each)"},
               {"dist", "uniform", "key distribution: uniform in [0,1) or exponential"}},
};

// A plausible bug that keeps the output sorted: one key replaced by the next
// larger double. Only the permutation check can see it.
void inject_fault(std::vector<double>& keys) {
  const std::size_t i = keys.size() - 1;
  keys[i] = std::nextafter(keys[i], 2 * keys[i] + 1);
}

Outcome run(const Options& o, KernelTimer& timer) {
  const KeyDistribution dist = parse_key_distribution(o.text("dist"));
  const std::uint64_t bucket = o.integer("bucket");
  if (bucket == 0) throw UsageError("--bucket must be at least 1");
  std::vector<double> keys = random_doubles(o.n, o.seed, dist);
  const MultisetDigest input = multiset_digest(std::span<const double>(keys));

  timer.measure([&] { samplesort::parallel_sort(keys, o.grain, bucket, o.seed); });

  if (o.inject_fault) inject_fault(keys);
  const std::span<const double> out(keys);
  return {
      "compare: n=" + std::to_string(o.n) + " dist=" + o.text("dist") + " checksum=" + fingerprint_sequence(out).hex(),
      check_sorted_permutation(out, input)};
}

}  // namespace

const Kernel kernels::kKernel{.info = kInfo, .run = run};
