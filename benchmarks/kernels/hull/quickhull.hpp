// Convex hull (PBBS convexHull): parallel quickhull in 2-D. The extreme
// points split the input into the points below and above the line through
// them; each side recurses: the point farthest from the chord (a parallel
// reduction over blocks) is a hull vertex, the points outside the two new
// chords are kept (a parallel two-way filter: per-block counts, scan, per-
// block scatter) and the two sub-problems run as parallel tasks. Written once
// over a scheduler (OmpTasks / TbbTasks); hull_omp.cpp and hull_tbb.cpp
// instantiate it.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "../common/blocks.hpp"
#include "../common/geometry.hpp"

namespace kernels::quickhull {

// The farthest point so far: largest distance from the chord, ties broken
// by the lexicographically smaller point, so any reduction order agrees.
struct Farthest {
  double dist = -1;
  Point2 p{};
  void offer(double d, const Point2& q) noexcept {
    if (d > dist || (d == dist && lex_less(q, p))) {
      dist = d;
      p = q;
    }
  }
  void offer(const Farthest& f) noexcept {
    if (f.dist >= 0) offer(f.dist, f.p);
  }
};

// Farthest point of pts[lo, hi) on the right of a→b (orient2d < 0).
Farthest farthest_block(const Point2* pts, std::size_t lo, std::size_t hi, const Point2& a, const Point2& b);

// A set of points in a buffer that is not zero-filled (its first touch is the
// parallel scatter that fills it).
struct PointSet {
  std::unique_ptr<Point2[]> pts;
  std::size_t size = 0;
  explicit PointSet(std::size_t n) : pts(std::make_unique_for_overwrite<Point2[]>(n)), size(n) {}
};

// A split at vertex c of chord a→b: points right of a→c form side 0, points
// right of c→b side 1; the rest (inside the triangle a, c, b, and c itself)
// are dropped.
void count_sides(const Point2* pts, std::size_t lo, std::size_t hi, const Point2& a, const Point2& c, const Point2& b,
                 std::size_t* counts);
void scatter_sides(const Point2* pts, std::size_t lo, std::size_t hi, const Point2& a, const Point2& c, const Point2& b,
                   std::size_t* offsets, Point2* side0, Point2* side1);

// Sequential quickhull of pts[0, n) (all right of a→b): appends the hull
// vertices strictly between a and b, in order from a to b.
void chain_sequential(const Point2* pts, std::size_t n, const Point2& a, const Point2& b, std::vector<Point2>& chain);

// Lexicographically smallest and largest point, as a reduction over blocks.
struct Extremes {
  Point2 lo, hi;
};
Extremes extremes_block(const Point2* pts, std::size_t lo, std::size_t hi);
void merge(Extremes& into, const Extremes& e) noexcept;

// Splits pts[0, n) at vertex c of chord a→b into its two sides, with a
// parallel count / scan / scatter over blocks.
template <class Par>
std::pair<PointSet, PointSet> split(const Point2* pts, std::size_t n, const Point2& a, const Point2& c, const Point2& b,
                                    std::size_t grain) {
  const Blocks blocks(n, grain);
  BucketCounts counts(blocks.count(), 2);
  Par::for_chunks(0, blocks.count(), 1, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t k = lo; k < hi; ++k) count_sides(pts, blocks.begin(k), blocks.end(k), a, c, b, counts.row(k));
  });
  const std::vector<std::size_t> starts = counts.to_offsets();
  for (std::size_t k = 0; k < blocks.count(); ++k) counts.row(k)[1] -= starts[1];  // side 1 has its own buffer
  std::pair<PointSet, PointSet> sides{PointSet(starts[1]), PointSet(starts[2] - starts[1])};
  Par::for_chunks(0, blocks.count(), 1, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t k = lo; k < hi; ++k)
      scatter_sides(pts, blocks.begin(k), blocks.end(k), a, c, b, counts.row(k), sides.first.pts.get(),
                    sides.second.pts.get());
  });
  return sides;
}

// Appends the hull vertices strictly between a and b (pts[0, n): all right of a→b).
template <class Par>
void chain(const Point2* pts, std::size_t n, const Point2& a, const Point2& b, std::size_t grain,
           std::vector<Point2>& out) {
  if (n <= grain) {
    chain_sequential(pts, n, a, b, out);
    return;
  }
  const Blocks blocks(n, grain);
  std::vector<Farthest> partial(blocks.count());
  Par::for_chunks(0, blocks.count(), 1, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t k = lo; k < hi; ++k) partial[k] = farthest_block(pts, blocks.begin(k), blocks.end(k), a, b);
  });
  Farthest f;
  for (const Farthest& p : partial) f.offer(p);
  const Point2 c = f.p;
  const std::pair<PointSet, PointSet> sides = split<Par>(pts, n, a, c, b, grain);
  const PointSet& left = sides.first;
  const PointSet& right = sides.second;
  std::vector<Point2> right_chain;
  Par::invoke([&] { chain<Par>(left.pts.get(), left.size, a, c, grain, out); },
              [&] { chain<Par>(right.pts.get(), right.size, c, b, grain, right_chain); });
  out.push_back(c);
  out.insert(out.end(), right_chain.begin(), right_chain.end());
}

// Counter-clockwise hull starting at the lexicographically smallest point.
template <class Par>
std::vector<Point2> hull_with(const std::vector<Point2>& pts, std::size_t grain) {
  std::vector<Point2> hull;
  if (pts.empty()) return hull;
  Par::run([&] {
    const Blocks blocks(pts.size(), grain);
    std::vector<Extremes> partial(blocks.count());
    Par::for_chunks(0, blocks.count(), 1, [&](std::size_t lo, std::size_t hi) {
      for (std::size_t k = lo; k < hi; ++k) partial[k] = extremes_block(pts.data(), blocks.begin(k), blocks.end(k));
    });
    Extremes e = partial[0];
    for (const Extremes& p : partial) merge(e, p);
    // Below l→r is right of l→r (side 0 of a split at vertex r of chord
    // l→l), above is right of r→l (side 1).
    const std::pair<PointSet, PointSet> sides = split<Par>(pts.data(), pts.size(), e.lo, e.hi, e.lo, grain);
    const PointSet& below = sides.first;
    const PointSet& above = sides.second;
    std::vector<Point2> lower, upper;
    Par::invoke([&] { chain<Par>(below.pts.get(), below.size, e.lo, e.hi, grain, lower); },
                [&] { chain<Par>(above.pts.get(), above.size, e.hi, e.lo, grain, upper); });
    hull.push_back(e.lo);
    hull.insert(hull.end(), lower.begin(), lower.end());
    if (!(e.hi == e.lo)) hull.push_back(e.hi);
    hull.insert(hull.end(), upper.begin(), upper.end());
  });
  return hull;
}

// The hull of `pts`; defined by the variant (hull_omp.cpp, hull_tbb.cpp).
std::vector<Point2> parallel_hull(const std::vector<Point2>& pts, std::size_t grain);

}  // namespace kernels::quickhull
