// Self-check of a 2-D convex hull, in O(n log h): the hull starts at the
// lexicographically smallest input point, turns strictly left at every
// vertex, uses only input points, and contains every input point. Together
// these make it the hull (the vertex list of the only convex polygon with
// vertices in the input that contains the input).
#pragma once

#include <vector>

#include "../common/checks.hpp"
#include "../common/geometry.hpp"

namespace kernels::quickhull {

CheckResult check_hull(const std::vector<Point2>& pts, const std::vector<Point2>& hull);

}  // namespace kernels::quickhull
