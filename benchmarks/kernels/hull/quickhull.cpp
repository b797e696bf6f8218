#include "quickhull.hpp"

namespace kernels::quickhull {

Farthest farthest_block(const Point2* pts, std::size_t lo, std::size_t hi, const Point2& a, const Point2& b) {
  Farthest f;
  for (std::size_t i = lo; i < hi; ++i) f.offer(-orient2d(a, b, pts[i]), pts[i]);
  return f;
}

namespace {

// 0: right of a→c; 1: right of c→b; 2: inside the triangle (dropped).
int side_of(const Point2& p, const Point2& a, const Point2& c, const Point2& b) noexcept {
  if (orient2d(a, c, p) < 0) return 0;
  if (orient2d(c, b, p) < 0) return 1;
  return 2;
}

}  // namespace

void count_sides(const Point2* pts, std::size_t lo, std::size_t hi, const Point2& a, const Point2& c, const Point2& b,
                 std::size_t* counts) {
  for (std::size_t i = lo; i < hi; ++i) {
    const int s = side_of(pts[i], a, c, b);
    if (s < 2) ++counts[s];
  }
}

void scatter_sides(const Point2* pts, std::size_t lo, std::size_t hi, const Point2& a, const Point2& c, const Point2& b,
                   std::size_t* offsets, Point2* side0, Point2* side1) {
  for (std::size_t i = lo; i < hi; ++i) {
    const int s = side_of(pts[i], a, c, b);
    if (s == 0) side0[offsets[0]++] = pts[i];
    if (s == 1) side1[offsets[1]++] = pts[i];
  }
}

void chain_sequential(const Point2* pts, std::size_t n, const Point2& a, const Point2& b, std::vector<Point2>& chain) {
  if (n == 0) return;
  const Point2 c = farthest_block(pts, 0, n, a, b).p;
  std::vector<Point2> side0, side1;
  for (std::size_t i = 0; i < n; ++i) {
    const int s = side_of(pts[i], a, c, b);
    if (s == 0) side0.push_back(pts[i]);
    if (s == 1) side1.push_back(pts[i]);
  }
  chain_sequential(side0.data(), side0.size(), a, c, chain);
  chain.push_back(c);
  chain_sequential(side1.data(), side1.size(), c, b, chain);
}

Extremes extremes_block(const Point2* pts, std::size_t lo, std::size_t hi) {
  Extremes e{pts[lo], pts[lo]};
  for (std::size_t i = lo + 1; i < hi; ++i) merge(e, {pts[i], pts[i]});
  return e;
}

void merge(Extremes& into, const Extremes& e) noexcept {
  if (lex_less(e.lo, into.lo)) into.lo = e.lo;
  if (lex_less(into.hi, e.hi)) into.hi = e.hi;
}

}  // namespace kernels::quickhull
