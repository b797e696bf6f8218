// Radix sort, TBB (TbbTasks: parallel_for over blocked_ranges).
#include "../common/tbb_api.hpp"
#include "radix_sort.hpp"

void kernels::radix::parallel_sort(std::vector<std::uint32_t>& keys, unsigned bits, std::size_t grain) {
  sort_with<TbbTasks>(keys, bits, grain);
}
