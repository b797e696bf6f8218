#include "rubato/power/os/thread_binding.hpp"

#include <cerrno>

namespace rubato {
namespace {

struct ThreadAffinity {
  bool saved = false;
  cpu_set_t original;
  int pinned = -1;
};

thread_local ThreadAffinity t_affinity;

}  // namespace

int get_thread_mask(int tid, cpu_set_t& mask) noexcept {
  CPU_ZERO(&mask);
  return sched_getaffinity(tid, sizeof mask, &mask) == 0 ? 0 : errno;
}

int set_thread_mask(int tid, const cpu_set_t& mask) noexcept {
  return sched_setaffinity(tid, sizeof mask, &mask) == 0 ? 0 : errno;
}

int pin_thread(int tid, int cpu) noexcept {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return EINVAL;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  return set_thread_mask(tid, one);
}

bool pin_current_thread(int cpu) noexcept {
  ThreadAffinity& a = t_affinity;
  if (a.pinned == cpu) return true;
  if (cpu < 0 || cpu >= CPU_SETSIZE) return false;
  if (!a.saved) {
    if (get_thread_mask(0, a.original) != 0) return false;
    a.saved = true;
  }
  if (pin_thread(0, cpu) != 0) return false;
  a.pinned = cpu;
  return true;
}

bool unpin_current_thread() noexcept {
  ThreadAffinity& a = t_affinity;
  if (a.pinned < 0) return true;
  if (!a.saved || set_thread_mask(0, a.original) != 0) return false;
  a.pinned = -1;
  return true;
}

int pinned_cpu_of_current_thread() noexcept { return t_affinity.pinned; }

}  // namespace rubato
