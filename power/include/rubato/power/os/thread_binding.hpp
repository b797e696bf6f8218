// The one place rubato changes a thread's CPU mask.
//
// The primitives (pin_thread, get_thread_mask, set_thread_mask) take a
// thread id (0: the calling thread), return 0 or the errno, allocate nothing
// and may run on a task's hot path. On them:
//  - worker-core binding ([HERMES] §3.4), below: static pins a worker's
//    thread to its core when it starts; dynamic pins it right before each
//    task and resets the affinity when the task completes. The thread's own
//    mask is remembered the first time it is pinned so it can be given back;
//  - ThreadAffinityKeeper (thread_affinity.hpp): the affinity controller
//    moving other threads, each mask saved before its first move;
//  - `rubato calibrate`'s load threads (calibration_load.cpp).
#pragma once

#include <sched.h>

namespace rubato {

// Binds thread `tid` (0: the calling thread) to `cpu` alone; EINVAL when
// `cpu` is out of range.
int pin_thread(int tid, int cpu) noexcept;
int get_thread_mask(int tid, cpu_set_t& mask) noexcept;
int set_thread_mask(int tid, const cpu_set_t& mask) noexcept;

// Pins the calling thread to `cpu`; false when the kernel refuses (the thread
// keeps its affinity). Does nothing when already pinned there.
bool pin_current_thread(int cpu) noexcept;
// Gives the calling thread back the affinity it had before its first pin.
bool unpin_current_thread() noexcept;
// The CPU the calling thread is pinned to by rubato, or -1.
int pinned_cpu_of_current_thread() noexcept;

}  // namespace rubato
