// k-NN, OpenMP tasks (OmpTasks: task/taskwait for the tree halves and query chunks).
#include "../common/omp_tasks.hpp"
#include "kdtree.hpp"

template <int D>
std::vector<std::uint32_t> kernels::knn::parallel_knn(const std::vector<Vec<D>>& pts, unsigned k, std::size_t grain) {
  return knn_with<OmpTasks, D>(pts, k, grain);
}

template std::vector<std::uint32_t> kernels::knn::parallel_knn<2>(const std::vector<Vec<2>>&, unsigned, std::size_t);
template std::vector<std::uint32_t> kernels::knn::parallel_knn<3>(const std::vector<Vec<3>>&, unsigned, std::size_t);
