#include "inputs.hpp"

#include <cmath>

#include "cli.hpp"

namespace kernels {

PointDistribution parse_point_distribution(const std::string& name) {
  if (name == "cube") return PointDistribution::cube;
  if (name == "disk") return PointDistribution::disk;
  throw UsageError("--dist: expected 'cube' or 'disk', got '" + name + "'");
}

std::vector<Point2> points_in_disk(std::size_t n, std::uint64_t seed) {
  // Rejection from the square [-1,1)^2: attempt j of point i draws numbers
  // (i, j), so the result does not depend on how points are generated.
  const CounterRng rng(seed, Stream::points);
  std::vector<Point2> pts(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::uint64_t j = 0;; ++j) {
      const std::uint64_t k = 2 * (i + (j << 40));
      const Point2 p{2 * rng.unit(k) - 1, 2 * rng.unit(k + 1) - 1};
      if (p[0] * p[0] + p[1] * p[1] < 1) {
        pts[i] = p;
        break;
      }
    }
  }
  return pts;
}

std::vector<Point2> points_2d(std::size_t n, std::uint64_t seed, PointDistribution dist) {
  return dist == PointDistribution::disk ? points_in_disk(n, seed) : points_in_cube<2>(n, seed);
}

std::vector<std::uint32_t> random_keys(std::size_t n, std::uint64_t seed, unsigned bits) {
  const CounterRng rng(seed, Stream::keys);
  const unsigned shift = 64 - bits;
  std::vector<std::uint32_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = static_cast<std::uint32_t>(rng.bits(i) >> shift);
  return keys;
}

KeyDistribution parse_key_distribution(const std::string& name) {
  if (name == "uniform") return KeyDistribution::uniform;
  if (name == "exponential") return KeyDistribution::exponential;
  throw UsageError("--dist: expected 'uniform' or 'exponential', got '" + name + "'");
}

std::vector<double> random_doubles(std::size_t n, std::uint64_t seed, KeyDistribution dist) {
  const CounterRng rng(seed, Stream::keys);
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double u = rng.unit(i);
    v[i] = dist == KeyDistribution::uniform ? u : -std::log1p(-u);
  }
  return v;
}

RayScene random_ray_scene(std::size_t n, std::size_t m, std::uint64_t seed) {
  RayScene s;
  s.triangles.resize(n);
  s.rays.resize(m);
  const CounterRng tri_rng(seed, Stream::triangles);
  const double size = 1.0 / std::cbrt(static_cast<double>(n));
  for (std::size_t i = 0; i < n; ++i) {
    Point3 centre;
    for (int d = 0; d < 3; ++d) centre[d] = tri_rng.unit(12 * i + d);
    auto vertex = [&](std::size_t k) {
      Point3 v;
      for (int d = 0; d < 3; ++d) v[d] = centre[d] + size * (tri_rng.unit(12 * i + 3 * k + d) - 0.5);
      return v;
    };
    s.triangles[i] = {vertex(1), vertex(2), vertex(3)};
  }
  const CounterRng ray_rng(seed, Stream::rays);
  for (std::size_t i = 0; i < m; ++i) {
    const Point3 from{ray_rng.unit(4 * i), ray_rng.unit(4 * i + 1), 0.0};
    const Point3 to{ray_rng.unit(4 * i + 2), ray_rng.unit(4 * i + 3), 1.0};
    s.rays[i] = {from, to - from};
  }
  return s;
}

}  // namespace kernels
