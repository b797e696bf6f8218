// ray: first triangle hit per ray with a parallel BVH (PBBS rayCast).
#include <string>

#include "../common/inputs.hpp"
#include "../common/program.hpp"
#include "ray_check.hpp"

using namespace kernels;

namespace {

const KernelInfo kInfo{
    .name = "ray",
    .summary = "first triangle hit by each ray, parallel BVH build and traversal (PBBS rayCast)",
    .n_help = "number of triangles (small, scattered in the unit cube)",
    .default_n = 100'000,
    .min_n = 1,
    .default_grain = 1024,
    .grain_help = "rays per task; subtrees of at most G triangles are built sequentially",
    .extras = {{"rays", "0", "number of rays crossing the cube (0: four times the triangles)"}},
};

// A plausible traversal bug: one sampled ray that hits reports a miss. The
// brute-force comparison sees it.
void inject_fault(std::vector<std::int32_t>& hits, std::uint64_t seed) {
  const auto sample = check_sample(hits.size(), ray::kCheckSamples, seed);
  for (std::size_t i : sample)
    if (hits[i] != -1) {
      hits[i] = -1;
      return;
    }
  hits[sample.front()] = 0;  // no sampled ray hits: claim one does
}

Outcome run(const Options& o, KernelTimer& timer) {
  const std::size_t rays = o.integer("rays") ? o.integer("rays") : 4 * o.n;
  const RayScene scene = random_ray_scene(o.n, rays, o.seed);

  std::vector<std::int32_t> hits =
      timer.measure([&] { return ray::parallel_cast(scene.triangles, scene.rays, o.grain); });

  if (o.inject_fault) inject_fault(hits, o.seed);
  Fingerprint f;
  std::size_t hit_count = 0;
  for (std::int32_t h : hits) {
    f.add(static_cast<std::uint32_t>(h));
    hit_count += h != -1;
  }
  return {"ray: n=" + std::to_string(o.n) + " rays=" + std::to_string(rays) + " hits=" + std::to_string(hit_count) +
              " checksum=" + f.hex(),
          ray::check_hits(scene.triangles, scene.rays, hits, o.seed)};
}

}  // namespace

const Kernel kernels::kKernel{.info = kInfo, .run = run};
