#include "rubato/power/os/thread_binding.hpp"

#include <pthread.h>
#include <sched.h>

namespace rubato {
namespace {

struct ThreadAffinity {
  bool saved = false;
  cpu_set_t original;
  int pinned = -1;
};

thread_local ThreadAffinity t_affinity;

}  // namespace

bool pin_current_thread(int cpu) noexcept {
  ThreadAffinity& a = t_affinity;
  if (a.pinned == cpu) return true;
  if (cpu < 0 || cpu >= CPU_SETSIZE) return false;
  if (!a.saved) {
    CPU_ZERO(&a.original);
    if (pthread_getaffinity_np(pthread_self(), sizeof a.original, &a.original) != 0) return false;
    a.saved = true;
  }
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0) return false;
  a.pinned = cpu;
  return true;
}

bool unpin_current_thread() noexcept {
  ThreadAffinity& a = t_affinity;
  if (a.pinned < 0) return true;
  if (!a.saved || pthread_setaffinity_np(pthread_self(), sizeof a.original, &a.original) != 0) return false;
  a.pinned = -1;
  return true;
}

int pinned_cpu_of_current_thread() noexcept { return t_affinity.pinned; }

}  // namespace rubato
