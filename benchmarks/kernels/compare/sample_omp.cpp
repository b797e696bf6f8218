// Sample sort, OpenMP tasks (OmpTasks: recursive task/taskwait halving).
#include "../common/omp_tasks.hpp"
#include "sample_sort.hpp"

void kernels::samplesort::parallel_sort(std::vector<double>& data, std::size_t grain, std::size_t bucket_size,
                                        std::uint64_t seed) {
  sort_with<OmpTasks>(data, grain, bucket_size, seed);
}
