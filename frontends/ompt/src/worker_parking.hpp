// The OpenMP actuator of the efs controller ([EFS] §4): a worker the
// controller deactivates parks at its next safe task scheduling point (see
// ompt_tool.cpp for which points and why they are safe) and sleeps on a futex
// until the controller lets it run again or its wait bound (the starvation
// bound, [EFS] Eqs. 21-24) runs out, whichever comes first.
//
// Hot path: at a scheduling point a worker not asked to park does one relaxed
// load of its own cache-line slot. Everything else happens while parked or on
// the controller thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "rubato/core/base/clock.hpp"
#include "rubato/core/efs/throttle_actuator.hpp"
#include "rubato/core/base/types.hpp"

namespace rubato::ompt {

class WorkerParking final : public ThrottleActuator {
 public:
  WorkerParking(std::size_t max_workers, const Clock& clock);

  // ---- controller thread (ThrottleActuator) ----
  std::string_view name() const noexcept override { return "ompt-park"; }
  bool per_target() const noexcept override { return true; }
  void apply(std::span<const std::uint8_t> parked, double max_wait_s) noexcept override;
  void release_all() noexcept override;
  std::optional<double> waited_s(std::uint64_t w) const noexcept override;
  std::optional<std::uint64_t> waits(std::uint64_t w) const noexcept override;

  // ---- worker w itself, at a safe scheduling point ----
  // True when the controller asks w to park and w has not already waited this request out.
  bool requested(WorkerId w) const noexcept {
    if (w >= workers_) return false;
    const Slot& s = slots_[w];
    const std::uint32_t r = s.request.load(std::memory_order_relaxed);
    return r != 0 && r != s.served;
  }
  // Sleeps until the request is withdrawn, everything is released, or the wait bound passes.
  void park(WorkerId w) noexcept;

 private:
  struct alignas(kCacheLine) Slot {
    std::atomic<std::uint32_t> request{0};  // the futex word: 0 run, else the park request's number
    std::uint32_t served = 0;               // the request w last waited out (written by w only)
    std::atomic<std::uint64_t> waited_ns{0};
    std::atomic<std::uint64_t> waits{0};
  };
  void wake(Slot& s) noexcept;

  std::size_t workers_;
  std::unique_ptr<Slot[]> slots_;
  const Clock& clock_;
  std::atomic<std::uint64_t> max_wait_ns_{0};
  std::atomic<bool> released_{false};
  std::uint32_t next_request_ = 1;  // controller thread only
};

}  // namespace rubato::ompt
