// Worker-core binding (seed 000 §3.4): static pins a worker's thread to its
// core when it starts; dynamic pins it right before each task and resets the
// affinity when the task completes. The thread's own mask is remembered the
// first time it is pinned so it can be given back.
#pragma once

namespace rubato {

// Pins the calling thread to `cpu`; false when the kernel refuses (the thread
// keeps its affinity). Does nothing when already pinned there.
bool pin_current_thread(int cpu) noexcept;
// Gives the calling thread back the affinity it had before its first pin.
bool unpin_current_thread() noexcept;
// The CPU the calling thread is pinned to by rubato, or -1.
int pinned_cpu_of_current_thread() noexcept;

}  // namespace rubato
