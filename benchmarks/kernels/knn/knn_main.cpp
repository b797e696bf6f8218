// knn: all-points k nearest neighbours with a parallel k-d tree (PBBS
// nearestNeighbors).
#include <string>

#include "../common/inputs.hpp"
#include "../common/program.hpp"
#include "knn_check.hpp"

using namespace kernels;

namespace {

const KernelInfo kInfo{
    .name = "knn",
    .summary = "k nearest neighbours of every point, parallel k-d tree (PBBS nearestNeighbors)",
    .n_help = "number of points (uniform in the unit square or cube)",
    .default_n = 2'000'000,
    .min_n = 2,
    .default_grain = 2048,
    .grain_help = "queries per task; subtrees of at most G points are built sequentially",
    .extras = {{"k", "10", "neighbours per point, 1..64 and < n"}, {"dim", "2", "dimension, 2 or 3"}},
};

// A plausible pruning bug: the last neighbour of one sampled point replaced
// by a farther point. The list stays sorted and distinct; only the
// brute-force comparison can see it.
template <int D>
void inject_fault(const std::vector<Vec<D>>& pts, unsigned k, std::vector<std::uint32_t>& nbrs, std::uint64_t seed) {
  const auto sample = check_sample(pts.size(), knn::kCheckSamples, seed);
  const std::size_t q = sample[sample.size() / 2];
  std::uint32_t* l = &nbrs[q * k];
  const double last = squared_distance(pts[q], pts[l[k - 1]]);
  for (std::uint32_t j = 0; j < pts.size(); ++j)
    if (j != q && std::find(l, l + k, j) == l + k && squared_distance(pts[q], pts[j]) > last) {
      l[k - 1] = j;
      return;
    }
}

template <int D>
Outcome run_dim(const Options& o, unsigned k, KernelTimer& timer) {
  const std::vector<Vec<D>> pts = points_in_cube<D>(o.n, o.seed);
  std::vector<std::uint32_t> nbrs = timer.measure([&] { return knn::parallel_knn<D>(pts, k, o.grain); });
  if (o.inject_fault) inject_fault(pts, k, nbrs, o.seed);
  Fingerprint f;
  for (std::uint32_t id : nbrs) f.add(id);
  return {"knn: n=" + std::to_string(o.n) + " dim=" + std::to_string(D) + " k=" + std::to_string(k) +
              " checksum=" + f.hex(),
          knn::check_knn(pts, k, nbrs, o.seed)};
}

Outcome run(const Options& o, KernelTimer& timer) {
  const std::uint64_t k = o.integer("k");
  if (k < 1 || k > knn::kMaxK || k >= o.n) throw UsageError("--k must be in 1..64 and less than --n");
  const std::uint64_t dim = o.integer("dim");
  if (dim == 2) return run_dim<2>(o, static_cast<unsigned>(k), timer);
  if (dim == 3) return run_dim<3>(o, static_cast<unsigned>(k), timer);
  throw UsageError("--dim must be 2 or 3");
}

}  // namespace

const Kernel kernels::kKernel{.info = kInfo, .run = run};
