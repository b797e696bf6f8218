// The workpath immediacy list of [HERMES] §3.1 / Fig. 5: workers doubly linked
// in the order of the immediacy of the work they hold. A victim's thieves follow
// it, the latest thief first (it holds more immediate work than earlier thieves).
//
// The list may hold several chains: a worker that never stole (e.g. the initial
// thread) heads the chain of its thieves. A worker with no predecessor is a
// "head": its work is immediate, and workload sensitivity never slows it.
//
// Thread safety: every mutation happens under the engine's list lock. The only
// lock-free access is `has_predecessor(w)` by worker w itself on its hot path;
// links are therefore relaxed atomics, one cache line per worker.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "rubato/core/base/types.hpp"

namespace rubato {

class ImmediacyList {
 public:
  explicit ImmediacyList(std::size_t workers);

  std::size_t size() const noexcept { return count_; }

  bool linked(WorkerId w) const noexcept { return node(w).linked.load(std::memory_order_relaxed); }
  WorkerId prev(WorkerId w) const noexcept { return node(w).prev.load(std::memory_order_relaxed); }
  WorkerId next(WorkerId w) const noexcept { return node(w).next.load(std::memory_order_relaxed); }
  bool has_predecessor(WorkerId w) const noexcept { return prev(w) != kNoWorker; }

  // Fig. 5 lines 21-26: `thief` becomes the victim's immediate successor, ahead
  // of the victim's earlier thieves. `thief` must not be linked.
  void insert_after(WorkerId victim, WorkerId thief) noexcept;

  // Fig. 5 lines 11-14: unlink `w`, joining its neighbours. No-op when unlinked.
  void remove(WorkerId w) noexcept;

 private:
  struct alignas(kCacheLine) Node {
    std::atomic<WorkerId> prev{kNoWorker};
    std::atomic<WorkerId> next{kNoWorker};
    std::atomic<bool> linked{false};
  };
  const Node& node(WorkerId w) const noexcept { return nodes_[w]; }
  Node& node(WorkerId w) noexcept { return nodes_[w]; }
  void set_prev(WorkerId w, WorkerId v) noexcept { node(w).prev.store(v, std::memory_order_relaxed); }
  void set_next(WorkerId w, WorkerId v) noexcept { node(w).next.store(v, std::memory_order_relaxed); }

  std::unique_ptr<Node[]> nodes_;
  std::size_t count_;
};

}  // namespace rubato
