#include "hull_check.hpp"

#include <algorithm>
#include <string>

namespace kernels::quickhull {

namespace {

// Is p inside or on the convex polygon h (counter-clockwise)? The fan from
// h[0] is binary-searched for the wedge holding p, then p is tested against
// that wedge's outer edge.
bool contains(const std::vector<Point2>& h, const Point2& p) {
  const Point2& o = h[0];
  const std::size_t m = h.size();
  if (orient2d(o, h[1], p) < 0 || orient2d(o, h[m - 1], p) > 0) return false;
  std::size_t lo = 1, hi = m - 1;  // invariant: orient(o, h[lo], p) >= 0, answer in [lo, hi)
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (orient2d(o, h[mid], p) >= 0) lo = mid;
    else hi = mid;
  }
  return orient2d(h[lo], h[lo + 1], p) >= 0;
}

// A convex polygon made of a few hull vertices: a point strictly inside it
// is inside the hull and is not a hull vertex, so most points need nothing
// more than this branch-free test.
class InnerPolygon {
 public:
  explicit InnerPolygon(const std::vector<Point2>& h) {
    const std::size_t k = std::min<std::size_t>(h.size(), kVertices);
    for (std::size_t i = 0; i < k; ++i) v_.push_back(h[i * h.size() / k]);
    v_.push_back(v_.front());  // closed: edge i is (v_[i], v_[i + 1])
  }
  bool strictly_inside(const Point2& p) const noexcept {
    bool in = true;
    for (std::size_t i = 0; i + 1 < v_.size(); ++i) in &= orient2d(v_[i], v_[i + 1], p) > 0;
    return in;
  }

 private:
  static constexpr std::size_t kVertices = 16;
  std::vector<Point2> v_;
};

}  // namespace

CheckResult check_hull(const std::vector<Point2>& pts, const std::vector<Point2>& hull) {
  const std::size_t m = hull.size();
  if (pts.size() >= 3 && m < 3) return CheckResult::fail("hull has " + std::to_string(m) + " vertices");
  if (m < 3) return CheckResult::pass();
  const Point2 smallest = *std::min_element(pts.begin(), pts.end(), lex_less);
  if (!(hull[0] == smallest)) return CheckResult::fail("hull does not start at the smallest point");
  for (std::size_t i = 0; i < m; ++i)
    if (!(orient2d(hull[i], hull[(i + 1) % m], hull[(i + 2) % m]) > 0))
      return CheckResult::fail("no strict left turn at vertex " + std::to_string((i + 1) % m));

  const InnerPolygon inner(hull);
  std::vector<Point2> sorted = hull;
  std::sort(sorted.begin(), sorted.end(), lex_less);
  std::vector<bool> seen(m, false);
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const Point2& p = pts[i];
    if (inner.strictly_inside(p)) continue;
    const auto it = std::lower_bound(sorted.begin(), sorted.end(), p, lex_less);
    if (it != sorted.end() && *it == p) {
      seen[static_cast<std::size_t>(it - sorted.begin())] = true;
      continue;
    }
    if (!contains(hull, p)) return CheckResult::fail("input point " + std::to_string(i) + " lies outside the hull");
  }
  if (std::find(seen.begin(), seen.end(), false) != seen.end())
    return CheckResult::fail("a hull vertex is not an input point");
  return CheckResult::pass();
}

}  // namespace kernels::quickhull
