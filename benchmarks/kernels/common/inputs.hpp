// Input generators of the kernels, modelled on PBBS's (randomSeq, 2DinCube,
// 2DinSphere, rayCast's triangles-in-a-box). Deterministic in (n, seed);
// sequential, and cheap next to the kernels they feed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "geometry.hpp"
#include "random.hpp"

namespace kernels {

enum class PointDistribution { cube, disk };

// "cube" or "disk"; throws UsageError otherwise.
PointDistribution parse_point_distribution(const std::string& name);

// Uniform in [0,1)^D.
template <int D>
std::vector<Vec<D>> points_in_cube(std::size_t n, std::uint64_t seed) {
  const CounterRng rng(seed, Stream::points);
  std::vector<Vec<D>> pts(n);
  for (std::size_t i = 0; i < n; ++i)
    for (int d = 0; d < D; ++d) pts[i][d] = rng.unit(i * D + static_cast<std::size_t>(d));
  return pts;
}

// Uniform in the unit disk (the hull has Θ(n^1/3) vertices).
std::vector<Point2> points_in_disk(std::size_t n, std::uint64_t seed);

std::vector<Point2> points_2d(std::size_t n, std::uint64_t seed, PointDistribution dist);

// Uniform integers in [0, 2^bits), 1 <= bits <= 32.
std::vector<std::uint32_t> random_keys(std::size_t n, std::uint64_t seed, unsigned bits);

enum class KeyDistribution { uniform, exponential };

// "uniform" or "exponential"; throws UsageError otherwise.
KeyDistribution parse_key_distribution(const std::string& name);

// Doubles, uniform in [0,1) or exponential with mean 1 (skewed: buckets of a
// sample sort then differ in size).
std::vector<double> random_doubles(std::size_t n, std::uint64_t seed, KeyDistribution dist);

// `n` small triangles scattered in the unit cube and `m` rays that cross it
// from the z = 0 face to the z = 1 face. Edge lengths scale as n^-1/3 so that
// a ray meets a bounded number of triangles whatever n (PBBS rayCast's
// "sparse" setting).
struct RayScene {
  std::vector<Triangle> triangles;
  std::vector<Ray> rays;
};
RayScene random_ray_scene(std::size_t n, std::size_t m, std::uint64_t seed);

}  // namespace kernels
