// A thread that calls `tick` every period until stopped: the sysfs applier,
// slack's sweeper and the energy meters' wraparound polls. stop() wakes it at
// once and joins; poke() makes it tick now. The thread starts with every
// signal blocked: the program's signals go to the program's threads, and a
// handler that waits for the session's report (restore_guard.hpp) never runs
// on a thread the report has to stop.
#pragma once

#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace rubato {

class PeriodicThread {
 public:
  PeriodicThread() = default;
  ~PeriodicThread() { stop(); }
  PeriodicThread(const PeriodicThread&) = delete;
  PeriodicThread& operator=(const PeriodicThread&) = delete;

  void start(std::chrono::nanoseconds period, std::function<void()> tick) {
    start([period, tick = std::move(tick)] {
      tick();
      return period;
    });
  }
  // `tick` returns how long to wait before the next tick.
  void start(std::function<std::chrono::nanoseconds()> tick) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (thread_.joinable()) return;
    stopping_ = false;
    struct BlockSignals {  // the new thread inherits the mask
      sigset_t before;
      BlockSignals() {
        sigset_t all;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &before);
      }
      ~BlockSignals() { pthread_sigmask(SIG_SETMASK, &before, nullptr); }
    } blocked;
    thread_ = std::thread([this, tick = std::move(tick)] {
      std::unique_lock<std::mutex> lk(mutex_);
      while (!stopping_) {
        lk.unlock();
        const std::chrono::nanoseconds wait = tick();
        lk.lock();
        wake_.wait_for(lk, wait, [this] { return stopping_ || poked_; });
        poked_ = false;
      }
    });
  }

  // An early tick (a slack raise the applier should not leave to its next poll).
  void poke() noexcept {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      poked_ = true;
    }
    wake_.notify_all();
  }

  void stop() noexcept {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool poked_ = false;
  std::thread thread_;
};

}  // namespace rubato
