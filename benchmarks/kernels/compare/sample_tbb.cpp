// Sample sort, TBB (TbbTasks: parallel_for over blocked_ranges).
#include "../common/tbb_api.hpp"
#include "sample_sort.hpp"

void kernels::samplesort::parallel_sort(std::vector<double>& data, std::size_t grain, std::size_t bucket_size,
                                        std::uint64_t seed) {
  sort_with<TbbTasks>(data, grain, bucket_size, seed);
}
