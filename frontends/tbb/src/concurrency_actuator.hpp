// The oneTBB actuator of the efs controller ([EFS] §4): oneTBB's
// concurrency limit (concurrency_throttle) set to the number of
// worker slots the controller lets run. oneTBB picks which threads sleep, and
// a lower limit takes effect when a worker comes back to the arena for work
// (frontends/tbb/README.md, "Concurrency throttle"): with fine tasks within a
// task, with one long parallel_for piece only after it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "rubato/core/efs/throttle_actuator.hpp"
#include "rubato/tbb/concurrency_throttle.hpp"

namespace rubato::tbb::detail {

class ConcurrencyActuator final : public ThrottleActuator {
 public:
  std::string_view name() const noexcept override { return "tbb-concurrency"; }
  bool per_target() const noexcept override { return false; }
  // The limit drops by one per parked slot, never below one thread; oneTBB's
  // limit holds no thread on its own, so there is no wait bound to enforce.
  void apply(std::span<const std::uint8_t> parked, double max_wait_s) noexcept override;
  void release_all() noexcept override;
  std::optional<double> waited_s(std::uint64_t) const noexcept override { return std::nullopt; }
  std::optional<std::uint64_t> waits(std::uint64_t) const noexcept override { return std::nullopt; }

 private:
  concurrency_throttle throttle_;
  bool released_ = false;
};

}  // namespace rubato::tbb::detail
