// A test-and-test-and-set lock for the engine's short critical sections (the
// immediacy list, shared clock domains). Under contention a std::mutex parks
// threads in the kernel (~µs); these sections last tens of ns. After a bounded
// spin it yields, so oversubscribed runs (64 threads on 2 cores) still progress.
#pragma once

#include <atomic>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define RUBATO_CPU_RELAX() _mm_pause()
#else
#define RUBATO_CPU_RELAX() std::atomic_signal_fence(std::memory_order_seq_cst)
#endif

namespace rubato {

class SpinLock {
 public:
  void lock() noexcept {
    for (unsigned spins = 0;; ++spins) {
      if (!locked_.exchange(true, std::memory_order_acquire)) return;
      while (locked_.load(std::memory_order_relaxed)) {
        if (++spins < 128) RUBATO_CPU_RELAX();
        else std::this_thread::yield();
      }
    }
  }
  bool try_lock() noexcept {
    return !locked_.load(std::memory_order_relaxed) && !locked_.exchange(true, std::memory_order_acquire);
  }
  void unlock() noexcept { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};

}  // namespace rubato
