#include "rubato/power/os/thread_affinity.hpp"

#include <cerrno>
#include <cstring>

#include "counters/thread_counter_table.hpp"
#include "rubato/power/os/thread_binding.hpp"

namespace rubato {

int ThreadAffinityKeeper::bind_thread(int tid, int cpu, std::string& why) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return why = "cpu " + std::to_string(cpu) + " is out of range", EINVAL;
  if (!saved_.count(tid)) {
    cpu_set_t original;
    if (const int err = get_thread_mask(tid, original); err != 0) {
      why = "thread " + std::to_string(tid) + ": sched_getaffinity: " + std::strerror(err);
      return err;
    }
    saved_.emplace(tid, original);
  }
  if (const int err = pin_thread(tid, cpu); err != 0) {
    why = "thread " + std::to_string(tid) + " to cpu " + std::to_string(cpu) +
          ": sched_setaffinity: " + std::strerror(err);
    return err;
  }
  return 0;
}

bool ThreadAffinityKeeper::bind(int pid, int tid, int cpu, std::string& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (tid != 0) return bind_thread(tid, cpu, why) == 0;
  bool all = true;
  for (int t : detail::threads_of_process(pid)) {
    std::string w;
    const int err = bind_thread(t, cpu, w);
    if (err != 0 && err != ESRCH) {  // a thread that just ended does not count
      all = false;
      why = w;
    }
  }
  return all;
}

std::size_t ThreadAffinityKeeper::restore() noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  std::size_t restored = 0;
  for (const auto& [tid, mask] : saved_)
    if (set_thread_mask(tid, mask) == 0) ++restored;
  saved_.clear();
  return restored;
}

std::size_t ThreadAffinityKeeper::moved_threads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return saved_.size();
}

}  // namespace rubato
