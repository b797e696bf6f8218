#include "rubato/core/tempo/immediacy_list.hpp"

namespace rubato {

ImmediacyList::ImmediacyList(std::size_t workers) : nodes_(new Node[workers]), count_(workers) {}

void ImmediacyList::insert_after(WorkerId victim, WorkerId thief) noexcept {
  // A victim that was never stolen from and never stole heads a new chain.
  node(victim).linked.store(true, std::memory_order_relaxed);
  const WorkerId old_next = next(victim);
  set_next(thief, old_next);
  if (old_next != kNoWorker) set_prev(old_next, thief);
  set_next(victim, thief);
  set_prev(thief, victim);
  node(thief).linked.store(true, std::memory_order_relaxed);
}

void ImmediacyList::remove(WorkerId w) noexcept {
  if (!linked(w)) return;
  const WorkerId p = prev(w);
  const WorkerId n = next(w);
  if (p != kNoWorker) set_next(p, n);
  if (n != kNoWorker) set_prev(n, p);
  set_prev(w, kNoWorker);
  set_next(w, kNoWorker);
  node(w).linked.store(false, std::memory_order_relaxed);
}

}  // namespace rubato
