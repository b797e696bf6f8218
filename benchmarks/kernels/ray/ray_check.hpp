// Self-check of ray casting: every hit names a triangle the ray really meets,
// and a seeded sample of rays equals a brute-force scan over all triangles.
#pragma once

#include <string>
#include <vector>

#include "../common/checks.hpp"
#include "bvh.hpp"

namespace kernels::ray {

constexpr std::size_t kCheckSamples = 48;

inline Hit brute_force(const std::vector<Triangle>& tris, const Ray& r) {
  Hit hit;
  for (std::size_t i = 0; i < tris.size(); ++i) hit.offer(intersect(r, tris[i]), static_cast<std::int32_t>(i));
  return hit;
}

inline CheckResult check_hits(const std::vector<Triangle>& tris, const std::vector<Ray>& rays,
                              const std::vector<std::int32_t>& hits, std::uint64_t seed) {
  for (std::size_t i = 0; i < rays.size(); ++i)
    if (hits[i] != -1 &&
        (hits[i] < -1 || static_cast<std::size_t>(hits[i]) >= tris.size() ||
         intersect(rays[i], tris[static_cast<std::size_t>(hits[i])]) == std::numeric_limits<double>::infinity()))
      return CheckResult::fail("ray " + std::to_string(i) + " does not meet its triangle " + std::to_string(hits[i]));
  for (std::size_t i : check_sample(rays.size(), kCheckSamples, seed)) {
    const Hit ref = brute_force(tris, rays[i]);
    if (hits[i] != ref.id)
      return CheckResult::fail("ray " + std::to_string(i) + " hits " + std::to_string(hits[i]) + ", brute force says " +
                               std::to_string(ref.id));
  }
  return CheckResult::pass();
}

}  // namespace kernels::ray
