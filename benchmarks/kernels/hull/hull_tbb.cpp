// Quickhull, TBB (TbbTasks: parallel_for over blocked_ranges, parallel_invoke).
#include "../common/tbb_api.hpp"
#include "quickhull.hpp"

std::vector<kernels::Point2> kernels::quickhull::parallel_hull(const std::vector<Point2>& pts, std::size_t grain) {
  return hull_with<TbbTasks>(pts, grain);
}
