#include "bvh.hpp"

namespace kernels::ray {

Prim make_prim(const Triangle& t, std::uint32_t id) {
  Prim p;
  p.box.extend(t.a);
  p.box.extend(t.b);
  p.box.extend(t.c);
  for (int d = 0; d < 3; ++d) p.centroid[d] = (t.a[d] + t.b[d] + t.c[d]) / 3;
  p.id = id;
  return p;
}

Box3 leaf_box(const Prim* prims, std::size_t lo, std::size_t hi) {
  Box3 b;
  for (std::size_t i = lo; i < hi; ++i) b.extend(prims[i].box);
  return b;
}

Hit trace(const Bvh& bvh, const Ray& r) {
  struct Range {
    std::size_t lo, hi;
  };
  Range stack[128];  // depth <= log2(n / kLeaf) + 1 per pending sibling
  int top = 0;
  stack[top++] = {0, bvh.triangles.size()};
  const RayInverse inv(r);
  Hit hit;
  while (top > 0) {
    const Range node = stack[--top];
    if (node.hi - node.lo <= kLeaf) {
      for (std::size_t i = node.lo; i < node.hi; ++i)
        hit.offer(intersect(r, bvh.triangles[i]), static_cast<std::int32_t>(bvh.ids[i]));
      continue;
    }
    const std::size_t mid = (node.lo + node.hi) / 2;
    const Node& inner = bvh.nodes[mid];
    if (box_entry(r, inv, inner.box, hit.t) == std::numeric_limits<double>::infinity()) continue;
    const Range left{node.lo, mid}, right{mid, node.hi};
    const bool left_near = r.direction[inner.axis] >= 0;
    stack[top++] = left_near ? right : left;
    stack[top++] = left_near ? left : right;
  }
  return hit;
}

}  // namespace kernels::ray
