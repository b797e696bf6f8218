// Ray casting (PBBS rayCast): the first triangle hit by each ray, with a
// bounding-volume hierarchy. The BVH is implicit in a permuted primitive
// array: a node over [lo, hi) splits at mid = (lo + hi) / 2 along the
// longest axis of its centroids' bounds (object median by nth_element);
// leaves hold at most kLeaf triangles; inner node boxes are kept at
// nodes[mid] (every inner node has its own mid). The two halves are built as
// parallel tasks; rays are traced in parallel chunks. Written once over a
// scheduler (OmpTasks / TbbTasks); ray_omp.cpp and ray_tbb.cpp instantiate it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "../common/geometry.hpp"
#include "../common/inline_tasks.hpp"

namespace kernels::ray {

constexpr std::size_t kLeaf = 4;

struct Prim {
  Box3 box;
  Point3 centroid;
  std::uint32_t id;
};

struct Node {
  Box3 box;
  int axis = 0;
};

// Nearest hit so far; equal distances go to the smaller triangle id so that
// the answer does not depend on the traversal order.
struct Hit {
  double t = std::numeric_limits<double>::infinity();
  std::int32_t id = -1;
  void offer(double t_hit, std::int32_t tri) noexcept {
    if (t_hit < t || (t_hit == t && t_hit != std::numeric_limits<double>::infinity() && tri < id)) {
      t = t_hit;
      id = tri;
    }
  }
};

Prim make_prim(const Triangle& t, std::uint32_t id);
Box3 leaf_box(const Prim* prims, std::size_t lo, std::size_t hi);

// Builds the subtree over prims[lo, hi) and returns its box; halves of more
// than `grain` primitives are built as parallel tasks.
template <class Par>
Box3 build(Prim* prims, Node* nodes, std::size_t lo, std::size_t hi, std::size_t grain) {
  if (hi - lo <= kLeaf) return leaf_box(prims, lo, hi);
  Box3 centroids;
  for (std::size_t i = lo; i < hi; ++i) centroids.extend(prims[i].centroid);
  const int axis = centroids.longest_axis();
  const std::size_t mid = (lo + hi) / 2;
  std::nth_element(prims + lo, prims + mid, prims + hi,
                   [axis](const Prim& a, const Prim& b) { return a.centroid[axis] < b.centroid[axis]; });
  Box3 left, right;
  if (hi - lo <= grain) {
    left = build<InlineTasks>(prims, nodes, lo, mid, grain);
    right = build<InlineTasks>(prims, nodes, mid, hi, grain);
  } else {
    Par::invoke([&] { left = build<Par>(prims, nodes, lo, mid, grain); },
                [&] { right = build<Par>(prims, nodes, mid, hi, grain); });
  }
  left.extend(right);
  nodes[mid] = {left, axis};
  return left;
}

// The BVH over a triangle set, with the triangles stored in tree order.
struct Bvh {
  std::vector<Node> nodes;
  std::vector<Triangle> triangles;
  std::vector<std::uint32_t> ids;
};

// First hit of ray r: (lo, hi) ranges on an explicit stack, near child first.
Hit trace(const Bvh& bvh, const Ray& r);

template <class Par>
std::vector<std::int32_t> cast_with(const std::vector<Triangle>& tris, const std::vector<Ray>& rays,
                                    std::size_t grain) {
  const std::size_t n = tris.size();
  Bvh bvh;
  bvh.nodes.resize(n);
  bvh.triangles.resize(n);
  bvh.ids.resize(n);
  std::vector<Prim> prims(n);
  std::vector<std::int32_t> hits(rays.size());
  Par::run([&] {
    Par::for_chunks(0, n, grain, [&](std::size_t lo, std::size_t hi) {
      for (std::size_t i = lo; i < hi; ++i) prims[i] = make_prim(tris[i], static_cast<std::uint32_t>(i));
    });
    build<Par>(prims.data(), bvh.nodes.data(), 0, n, grain);
    Par::for_chunks(0, n, grain, [&](std::size_t lo, std::size_t hi) {
      for (std::size_t i = lo; i < hi; ++i) {
        bvh.triangles[i] = tris[prims[i].id];
        bvh.ids[i] = prims[i].id;
      }
    });
    Par::for_chunks(0, rays.size(), grain, [&](std::size_t lo, std::size_t hi) {
      for (std::size_t i = lo; i < hi; ++i) hits[i] = trace(bvh, rays[i]).id;
    });
  });
  return hits;
}

// For every ray, the id of the first triangle it hits or -1; defined by the
// variant (ray_omp.cpp, ray_tbb.cpp).
std::vector<std::int32_t> parallel_cast(const std::vector<Triangle>& tris, const std::vector<Ray>& rays,
                                        std::size_t grain);

}  // namespace kernels::ray
