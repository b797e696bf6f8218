// k-NN, TBB (TbbTasks: parallel_invoke for the tree halves, parallel_for for the queries).
#include "../common/tbb_api.hpp"
#include "kdtree.hpp"

template <int D>
std::vector<std::uint32_t> kernels::knn::parallel_knn(const std::vector<Vec<D>>& pts, unsigned k, std::size_t grain) {
  return knn_with<TbbTasks, D>(pts, k, grain);
}

template std::vector<std::uint32_t> kernels::knn::parallel_knn<2>(const std::vector<Vec<2>>&, unsigned, std::size_t);
template std::vector<std::uint32_t> kernels::knn::parallel_knn<3>(const std::vector<Vec<3>>&, unsigned, std::size_t);
