// K nearest neighbours (PBBS nearestNeighbors): all-points k-NN in 2-D or 3-D
// with a k-d tree. The tree is implicit in a permuted point array: a node
// over [lo, hi) splits at mid = (lo + hi) / 2 on axis depth % D (the median,
// placed by nth_element), leaves hold at most kLeaf points. Every inner node
// has its own mid, so its split coordinate is kept at split[mid] (the
// children's nth_element later moves items[mid]). The two halves
// are built as parallel tasks; then the queries (every point, in tree order
// for locality) run in parallel chunks. Written once over a scheduler
// (OmpTasks / TbbTasks); knn_omp.cpp and knn_tbb.cpp instantiate it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../common/geometry.hpp"
#include "../common/inline_tasks.hpp"

namespace kernels::knn {

constexpr std::size_t kLeaf = 16;
constexpr unsigned kMaxK = 64;

template <int D>
struct Item {
  Vec<D> p;
  std::uint32_t id;
};

// The k best candidates so far, ascending by (squared distance, id): ties
// are broken by id so that the answer is unique whatever the search order.
class Neighbours {
 public:
  explicit Neighbours(unsigned k) noexcept : k_(k) {}
  bool full() const noexcept { return size_ == k_; }
  double worst() const noexcept { return d_[size_ - 1]; }
  void offer(double d, std::uint32_t id) noexcept {
    if (full() && !(d < d_[size_ - 1] || (d == d_[size_ - 1] && id < id_[size_ - 1]))) return;
    unsigned i = full() ? size_ - 1 : size_++;
    for (; i > 0 && (d < d_[i - 1] || (d == d_[i - 1] && id < id_[i - 1])); --i) {
      d_[i] = d_[i - 1];
      id_[i] = id_[i - 1];
    }
    d_[i] = d;
    id_[i] = id;
  }
  unsigned size() const noexcept { return size_; }
  std::uint32_t id(unsigned i) const noexcept { return id_[i]; }

 private:
  unsigned k_;
  unsigned size_ = 0;
  double d_[kMaxK];
  std::uint32_t id_[kMaxK];
};

// Builds the subtree over items[lo, hi): halves of more than `grain` points
// are built as parallel tasks.
template <class Par, int D>
void build(Item<D>* items, double* split, std::size_t lo, std::size_t hi, int depth, std::size_t grain) {
  if (hi - lo <= kLeaf) return;
  const int axis = depth % D;
  const std::size_t mid = (lo + hi) / 2;
  std::nth_element(items + lo, items + mid, items + hi,
                   [axis](const Item<D>& a, const Item<D>& b) { return a.p[axis] < b.p[axis]; });
  split[mid] = items[mid].p[axis];
  if (hi - lo <= grain) {
    build<InlineTasks>(items, split, lo, mid, depth + 1, grain);
    build<InlineTasks>(items, split, mid, hi, depth + 1, grain);
  } else {
    Par::invoke([=] { build<Par>(items, split, lo, mid, depth + 1, grain); },
                [=] { build<Par>(items, split, mid, hi, depth + 1, grain); });
  }
}

// Offers the points of the subtree over items[lo, hi), nearest side first,
// skipping a side that cannot hold a better candidate.
template <int D>
void search(const Item<D>* items, const double* split, std::size_t lo, std::size_t hi, int depth, const Vec<D>& q,
            std::uint32_t self, Neighbours& best) {
  if (hi - lo <= kLeaf) {
    for (std::size_t i = lo; i < hi; ++i)
      if (items[i].id != self) best.offer(squared_distance(q, items[i].p), items[i].id);
    return;
  }
  const std::size_t mid = (lo + hi) / 2;
  const int axis = depth % D;
  const double diff = q[axis] - split[mid];
  const bool left_first = diff < 0;
  search(items, split, left_first ? lo : mid, left_first ? mid : hi, depth + 1, q, self, best);
  if (!best.full() || diff * diff <= best.worst())
    search(items, split, left_first ? mid : lo, left_first ? hi : mid, depth + 1, q, self, best);
}

// For every point i, its k nearest other points ascending by (distance, id)
// at result[i * k, (i + 1) * k).
template <class Par, int D>
std::vector<std::uint32_t> knn_with(const std::vector<Vec<D>>& pts, unsigned k, std::size_t grain) {
  const std::size_t n = pts.size();
  std::vector<Item<D>> items(n);
  for (std::size_t i = 0; i < n; ++i) items[i] = {pts[i], static_cast<std::uint32_t>(i)};
  std::vector<double> split(n);
  std::vector<std::uint32_t> result(n * k);
  Par::run([&] {
    build<Par, D>(items.data(), split.data(), 0, n, 0, grain);
    Par::for_chunks(0, n, grain, [&](std::size_t lo, std::size_t hi) {
      for (std::size_t i = lo; i < hi; ++i) {
        Neighbours best(k);
        search(items.data(), split.data(), 0, n, 0, items[i].p, items[i].id, best);
        for (unsigned j = 0; j < k; ++j) result[std::size_t{items[i].id} * k + j] = best.id(j);
      }
    });
  });
  return result;
}

// Defined by the variant (knn_omp.cpp, knn_tbb.cpp) for D = 2 and 3.
template <int D>
std::vector<std::uint32_t> parallel_knn(const std::vector<Vec<D>>& pts, unsigned k, std::size_t grain);

}  // namespace kernels::knn
