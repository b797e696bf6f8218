// Points, boxes, rays and triangles shared by knn, ray and hull. Every
// predicate is a plain double expression evaluated the same way by the kernels
// and by their checkers, so both see bit-identical values.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace kernels {

// A point or vector of D doubles (an aggregate: Vec<2>{x, y}).
template <int D>
struct Vec {
  double c[D];
  double& operator[](int i) noexcept { return c[i]; }
  const double& operator[](int i) const noexcept { return c[i]; }
  bool operator==(const Vec&) const = default;
};
using Point2 = Vec<2>;
using Point3 = Vec<3>;

template <int D>
Vec<D> operator-(const Vec<D>& a, const Vec<D>& b) noexcept {
  Vec<D> r;
  for (int i = 0; i < D; ++i) r[i] = a[i] - b[i];
  return r;
}

template <int D>
double squared_distance(const Vec<D>& a, const Vec<D>& b) noexcept {
  double s = 0;
  for (int i = 0; i < D; ++i) {
    const double d = a[i] - b[i];
    s += d * d;
  }
  return s;
}

inline double dot(const Point3& a, const Point3& b) noexcept { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

inline Point3 cross(const Point3& a, const Point3& b) noexcept {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

// Twice the signed area of (a, b, c): > 0 when c is left of a→b (a
// counter-clockwise turn).
inline double orient2d(const Point2& a, const Point2& b, const Point2& c) noexcept {
  return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

// Lexicographic (x, then y): the hull starts at the smallest point.
inline bool lex_less(const Point2& a, const Point2& b) noexcept { return a[0] < b[0] || (a[0] == b[0] && a[1] < b[1]); }

struct Box3 {
  Point3 lo{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
            std::numeric_limits<double>::infinity()};
  Point3 hi{-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
            -std::numeric_limits<double>::infinity()};

  void extend(const Point3& p) noexcept {
    for (int i = 0; i < 3; ++i) {
      lo[i] = std::min(lo[i], p[i]);
      hi[i] = std::max(hi[i], p[i]);
    }
  }
  void extend(const Box3& b) noexcept {
    extend(b.lo);
    extend(b.hi);
  }
  int longest_axis() const noexcept {
    const Point3 e = hi - lo;
    return e[0] >= e[1] ? (e[0] >= e[2] ? 0 : 2) : (e[1] >= e[2] ? 1 : 2);
  }
};

struct Triangle {
  Point3 a, b, c;
};

struct Ray {
  Point3 origin;
  Point3 direction;
};

// Ray parameter t > 0 where the ray meets the triangle, or +inf on a miss
// (Möller & Trumbore, "Fast, minimum storage ray/triangle intersection", 1997).
inline double intersect(const Ray& r, const Triangle& tri) noexcept {
  constexpr double kParallel = 1e-15;
  const Point3 e1 = tri.b - tri.a;
  const Point3 e2 = tri.c - tri.a;
  const Point3 p = cross(r.direction, e2);
  const double det = dot(e1, p);
  if (std::fabs(det) < kParallel) return std::numeric_limits<double>::infinity();
  const double inv = 1.0 / det;
  const Point3 s = r.origin - tri.a;
  const double u = dot(s, p) * inv;
  if (u < 0.0 || u > 1.0) return std::numeric_limits<double>::infinity();
  const Point3 q = cross(s, e1);
  const double v = dot(r.direction, q) * inv;
  if (v < 0.0 || u + v > 1.0) return std::numeric_limits<double>::infinity();
  const double t = dot(e2, q) * inv;
  return t > 0.0 ? t : std::numeric_limits<double>::infinity();
}

// Precomputed reciprocal direction for slab tests.
struct RayInverse {
  Point3 inv;
  explicit RayInverse(const Ray& r) noexcept : inv{1.0 / r.direction[0], 1.0 / r.direction[1], 1.0 / r.direction[2]} {}
};

// Entry parameter of the ray into the box if it meets the box before t_max,
// else +inf. The interval is widened by a few ulps so that rounding never
// prunes a box whose triangle the brute-force reference would hit (Ize,
// "Robust BVH ray traversal", JCGT 2013).
inline double box_entry(const Ray& r, const RayInverse& ri, const Box3& b, double t_max) noexcept {
  constexpr double kWiden = 1.0 + 4 * std::numeric_limits<double>::epsilon();
  double t0 = 0.0;
  double t1 = t_max;
  for (int i = 0; i < 3; ++i) {
    double a = (b.lo[i] - r.origin[i]) * ri.inv[i];
    double c = (b.hi[i] - r.origin[i]) * ri.inv[i];
    if (a > c) std::swap(a, c);
    c *= kWiden;
    t0 = a > t0 ? a : t0;  // NaN (0 * inf) leaves the bound unchanged
    t1 = c < t1 ? c : t1;
  }
  return t0 <= t1 ? t0 : std::numeric_limits<double>::infinity();
}

}  // namespace kernels
