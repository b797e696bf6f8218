// Ray casting, TBB (TbbTasks: parallel_invoke for the BVH halves, parallel_for for the rays).
#include "../common/tbb_api.hpp"
#include "bvh.hpp"

std::vector<std::int32_t> kernels::ray::parallel_cast(const std::vector<Triangle>& tris, const std::vector<Ray>& rays,
                                                      std::size_t grain) {
  return cast_with<TbbTasks>(tris, rays, grain);
}
