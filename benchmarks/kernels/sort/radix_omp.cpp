// Radix sort, OpenMP tasks (OmpTasks: recursive task/taskwait halving).
#include "../common/omp_tasks.hpp"
#include "radix_sort.hpp"

void kernels::radix::parallel_sort(std::vector<std::uint32_t>& keys, unsigned bits, std::size_t grain) {
  sort_with<OmpTasks>(keys, bits, grain);
}
