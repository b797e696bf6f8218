// UncoreControl that changes nothing: it records the level a policy sets (and
// counts the changes, under the same rate limit as the real one), so that
// the emulator and the simulator can apply it to the uncore-sensitive part
// of the work, and the power model can charge the uncore at it. Where the
// machine has no uncore control, or the run changes no real frequency.
#pragma once

#include "rubato/power/frequency/uncore_control.hpp"

namespace rubato {

class ModeledUncoreControl final : public UncoreControl {
 public:
  // `domains` domains with one `ladder`, each starting at `initial_hz` (0:
  // the ladder's fastest); `clock` nullptr = a SteadyClock.
  explicit ModeledUncoreControl(UncoreLadder ladder, std::size_t domains = 1, double initial_hz = 0,
                                const Clock* clock = nullptr, std::uint64_t min_interval_ns = 0);

  std::string_view name() const noexcept override { return "modeled"; }
  bool changes_speed() const noexcept override { return false; }
  // Back to the initial setting; later sets fail.
  RestoreOutcome restore() noexcept override;

 protected:
  double write(std::size_t d, double hz, std::string& why) override;

 private:
  double initial_hz_;
  bool restored_ = false;
};

}  // namespace rubato
