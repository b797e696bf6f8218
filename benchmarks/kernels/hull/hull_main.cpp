// hull: parallel quickhull of random 2-D points (PBBS convexHull).
#include <string>

#include "../common/inputs.hpp"
#include "../common/program.hpp"
#include "hull_check.hpp"
#include "quickhull.hpp"

using namespace kernels;

namespace {

const KernelInfo kInfo{
    .name = "hull",
    .summary = "parallel quickhull of random 2-D points (PBBS convexHull)",
    .n_help = "number of points",
    .default_n = 40'000'000,
    .min_n = 3,
    .default_grain = 1 << 15,
    .grain_help = "points per block of a reduction or filter pass; smaller sub-problems run sequentially",
    .extras = {{"dist", "disk", "points uniform in the unit 'disk' or the unit square 'cube'"}},
};

Outcome run(const Options& o, KernelTimer& timer) {
  const std::vector<Point2> pts = points_2d(o.n, o.seed, parse_point_distribution(o.text("dist")));

  std::vector<Point2> hull = timer.measure([&] { return quickhull::parallel_hull(pts, o.grain); });

  // A plausible bug: one hull vertex lost. The point then lies outside.
  if (o.inject_fault && !hull.empty()) hull.erase(hull.begin() + static_cast<std::ptrdiff_t>(hull.size() / 2));
  Fingerprint f;
  for (const Point2& p : hull) {
    f.add_double(p[0]);
    f.add_double(p[1]);
  }
  return {"hull: n=" + std::to_string(o.n) + " dist=" + o.text("dist") + " vertices=" + std::to_string(hull.size()) +
              " checksum=" + f.hex(),
          quickhull::check_hull(pts, hull)};
}

}  // namespace

const Kernel kernels::kKernel{.info = kInfo, .run = run};
