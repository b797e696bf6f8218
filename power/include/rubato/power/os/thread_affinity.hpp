// Moves threads, or whole processes, to a CPU for the affinity controller
// ([META] §III: hard affinity, as taskset sets it), through the primitives of
// thread_binding.hpp. A thread's CPU mask is machine state for the run: it is
// recorded before the thread's first move and put back by restore()
// (docs/design.md "Restore and safety": recorded first, restored).
#pragma once

#include <sched.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <string>

namespace rubato {

class ThreadAffinityKeeper {
 public:
  ThreadAffinityKeeper() = default;
  ThreadAffinityKeeper(const ThreadAffinityKeeper&) = delete;
  ThreadAffinityKeeper& operator=(const ThreadAffinityKeeper&) = delete;
  ~ThreadAffinityKeeper() { restore(); }

  // Binds thread `tid` — or, with tid 0, every thread process `pid` has now —
  // to `cpu`. false + `why` when the kernel refuses (the masks stay as they were).
  bool bind(int pid, int tid, int cpu, std::string& why);
  // Puts back the mask of every thread moved; threads that ended are skipped.
  // Returns how many were restored. Idempotent.
  std::size_t restore() noexcept;
  std::size_t moved_threads() const;

 private:
  int bind_thread(int tid, int cpu, std::string& why);  // 0 or the errno
  mutable std::mutex mutex_;
  std::map<int, cpu_set_t> saved_;  // tid -> mask before its first move
};

}  // namespace rubato
