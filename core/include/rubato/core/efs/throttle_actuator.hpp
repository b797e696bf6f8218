// Where contention-aware throttling ([EFS] §4, the `efs` controller) acts:
// which of the targets — a front-end's workers, or the programs of a
// `rubato run --mix` — may run. Implemented by the OpenMP front-end (parks a
// worker at a task scheduling point), the TBB front-end (a concurrency limit)
// and the mix runner (SIGSTOP / SIGCONT); the controller does not know which.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace rubato {

class ThrottleActuator {
 public:
  virtual ~ThrottleActuator() = default;

  virtual std::string_view name() const noexcept = 0;  // "ompt-park", "tbb-concurrency", "sigstop"

  // True: `apply` decides exactly which target waits. False: only how many run
  // (the runtime picks which threads sleep: oneTBB's concurrency limit).
  virtual bool per_target() const noexcept = 0;

  // Called by the controlling thread only. parked[i] != 0: target i should not
  // run; targets beyond the span run. A parked target never waits longer than
  // `max_wait_s` on its own (the starvation bound, [EFS] Eqs. 21-24), even if
  // the controller stops deciding. The controller never parks every live target.
  virtual void apply(std::span<const std::uint8_t> parked, double max_wait_s) noexcept = 0;

  // Everything runs again, and later `apply` calls are ignored. Idempotent.
  virtual void release_all() noexcept = 0;

  // Seconds target i actually spent waiting, as the actuator measured it;
  // nullopt when it cannot tell (a count-only actuator).
  virtual std::optional<double> waited_s(std::uint64_t target) const noexcept = 0;
  // How many times target i actually started waiting; nullopt as above.
  virtual std::optional<std::uint64_t> waits(std::uint64_t target) const noexcept = 0;
};

}  // namespace rubato
