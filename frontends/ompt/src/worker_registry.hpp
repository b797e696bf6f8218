// Which worker index each runtime thread gets. A thread keeps its index for its
// whole life (it is stored in the thread's OMPT thread_data), so identity
// survives any number of parallel regions; an index is freed when its thread
// ends and may then be reused.
//
// A thread asks for the index equal to its OpenMP thread number in the first
// team it joins, so in a program with one level of parallelism worker i is
// OpenMP thread i in the report. When that index is taken (nested teams, new
// root threads) it gets the lowest free one. Threads beyond max_workers get
// none and are counted. Called at thread begin / first implicit task only:
// a mutex is fine here.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "rubato/core/base/types.hpp"

namespace rubato::ompt {

class WorkerRegistry {
 public:
  explicit WorkerRegistry(std::size_t max_workers) : used_(max_workers, false) {}

  // kNoWorker when every index is taken.
  WorkerId claim(WorkerId preferred) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (preferred < used_.size() && !used_[preferred]) return take(preferred);
    for (WorkerId w = 0; w < used_.size(); ++w)
      if (!used_[w]) return take(w);
    ++refused_;
    return kNoWorker;
  }
  void release(WorkerId w) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (w < used_.size()) used_[w] = false;
  }
  std::uint64_t refused() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return refused_;
  }
  std::size_t capacity() const { return used_.size(); }

 private:
  WorkerId take(WorkerId w) {
    used_[w] = true;
    return w;
  }
  mutable std::mutex mutex_;
  std::vector<bool> used_;
  std::uint64_t refused_ = 0;
};

}  // namespace rubato::ompt
