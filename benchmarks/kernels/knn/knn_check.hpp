// Self-check of all-points k-NN: every list holds k distinct other points in
// non-decreasing distance, and a seeded sample of lists equals a brute-force
// scan over all points (PBBS's nearestNeighbors check also samples).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "../common/checks.hpp"
#include "kdtree.hpp"

namespace kernels::knn {

constexpr std::size_t kCheckSamples = 64;

template <int D>
Neighbours brute_force(const std::vector<Vec<D>>& pts, std::size_t q, unsigned k) {
  Neighbours best(k);
  for (std::size_t j = 0; j < pts.size(); ++j)
    if (j != q) best.offer(squared_distance(pts[q], pts[j]), static_cast<std::uint32_t>(j));
  return best;
}

template <int D>
CheckResult check_knn(const std::vector<Vec<D>>& pts, unsigned k, const std::vector<std::uint32_t>& nbrs,
                      std::uint64_t seed) {
  const std::size_t n = pts.size();
  for (std::size_t q = 0; q < n; ++q) {
    const std::uint32_t* l = &nbrs[q * k];
    double previous = 0;
    for (unsigned j = 0; j < k; ++j) {
      const char* problem = nullptr;
      if (l[j] >= n || l[j] == q) {
        problem = "invalid id";
      } else if (std::find(l, l + j, l[j]) != l + j) {
        problem = "repeated";
      } else {
        const double d = squared_distance(pts[q], pts[l[j]]);
        if (d < previous) problem = "nearer than its predecessor";
        previous = d;
      }
      if (problem)
        return CheckResult::fail("point " + std::to_string(q) + " neighbour " + std::to_string(j) + ": " + problem);
    }
  }
  for (std::size_t q : check_sample(n, kCheckSamples, seed)) {
    const Neighbours ref = brute_force(pts, q, k);
    for (unsigned j = 0; j < k; ++j)
      if (nbrs[q * k + j] != ref.id(j))
        return CheckResult::fail("point " + std::to_string(q) + " neighbour " + std::to_string(j) + " is " +
                                 std::to_string(nbrs[q * k + j]) + ", brute force says " + std::to_string(ref.id(j)));
  }
  return CheckResult::pass();
}

}  // namespace kernels::knn
