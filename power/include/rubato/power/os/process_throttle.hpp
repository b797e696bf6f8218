// The efs actuator of a multi-programmed run (`rubato run --mix`, [EFS]'s
// setting): a program the controller deactivates is stopped whole — SIGSTOP to
// its process group — and continued with SIGCONT. A stopped program never
// waits longer than the starvation bound the controller passes ([EFS]
// Eqs. 21-24): a watchdog thread continues it when the bound runs out, even if
// the controller has stopped deciding. release_all (and the destructor)
// continues every program; the caller also continues them from its signal
// handlers (cli/experiment/process.hpp), so no program is left stopped when rubato ends.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <span>

#include "rubato/core/base/clock.hpp"
#include "rubato/core/efs/throttle_actuator.hpp"
#include "rubato/power/os/periodic_thread.hpp"

namespace rubato {

class ProcessThrottle final : public ThrottleActuator {
 public:
  explicit ProcessThrottle(const Clock& clock);
  ~ProcessThrottle() override;
  ProcessThrottle(const ProcessThrottle&) = delete;
  ProcessThrottle& operator=(const ProcessThrottle&) = delete;

  // Program `target` runs as process group `pgid`; forget: it ended (never signalled again).
  void add_program(std::uint64_t target, pid_t pgid);
  void forget_program(std::uint64_t target) noexcept;

  std::string_view name() const noexcept override { return "sigstop"; }
  bool per_target() const noexcept override { return true; }
  void apply(std::span<const std::uint8_t> parked, double max_wait_s) noexcept override;
  void release_all() noexcept override;
  std::optional<double> waited_s(std::uint64_t target) const noexcept override;
  std::optional<std::uint64_t> waits(std::uint64_t target) const noexcept override;

 private:
  struct Program {
    pid_t pgid = 0;
    bool alive = true;
    bool stopped = false;
    bool bound_ran_out = false;  // the watchdog continued it; not stopped again until the controller resumes it
    std::uint64_t stopped_at_ns = 0;
    std::uint64_t waited_ns = 0;
    std::uint64_t waits = 0;
  };
  void resume(Program& p, std::uint64_t now_ns) noexcept;  // with mutex_ held
  void watchdog() noexcept;

  const Clock& clock_;
  mutable std::mutex mutex_;
  std::map<std::uint64_t, Program> programs_;
  std::uint64_t max_wait_ns_ = 0;
  bool released_ = false;
  PeriodicThread watchdog_;
};

}  // namespace rubato
