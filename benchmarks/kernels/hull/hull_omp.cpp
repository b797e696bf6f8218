// Quickhull, OpenMP tasks (OmpTasks: recursive task/taskwait halving).
#include "../common/omp_tasks.hpp"
#include "quickhull.hpp"

std::vector<kernels::Point2> kernels::quickhull::parallel_hull(const std::vector<Point2>& pts, std::size_t grain) {
  return hull_with<OmpTasks>(pts, grain);
}
