// Time source injected into the engine: the real monotonic clock for live runs,
// simulated time for the simulator.
#pragma once

#include <chrono>
#include <cstdint>

namespace rubato {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::uint64_t now_ns() const noexcept = 0;
};

// std::chrono::steady_clock is CLOCK_MONOTONIC through the vDSO: no system call.
class SteadyClock final : public Clock {
 public:
  std::uint64_t now_ns() const noexcept override {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::steady_clock::now().time_since_epoch())
            .count());
  }
};

// A clock the caller moves by hand (tests, simulator).
class ManualClock final : public Clock {
 public:
  std::uint64_t now_ns() const noexcept override { return now_; }
  void set(std::uint64_t ns) noexcept { now_ = ns; }
  void advance(std::uint64_t ns) noexcept { now_ += ns; }

 private:
  std::uint64_t now_ = 0;
};

}  // namespace rubato
