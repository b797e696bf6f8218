// Ray casting, OpenMP tasks (OmpTasks: task/taskwait for the BVH halves and ray chunks).
#include "../common/omp_tasks.hpp"
#include "bvh.hpp"

std::vector<std::int32_t> kernels::ray::parallel_cast(const std::vector<Triangle>& tris, const std::vector<Ray>& rays,
                                                      std::size_t grain) {
  return cast_with<OmpTasks>(tris, rays, grain);
}
