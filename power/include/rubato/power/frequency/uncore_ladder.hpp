// The uncore frequencies a policy may choose from, fastest first (level 0),
// like the core's TempoLadder ([HERMES] §3.4): from an uncore domain's
// hardware range in the hardware's steps, or from a machine profile's
// uncore_power table where there is no domain (the emulator, the simulator).
#pragma once

#include <cstddef>
#include <vector>

namespace rubato {

struct MachineProfile;

// Intel's uncore ratio is in units of 100 MHz (Intel SDM vol. 4,
// MSR_UNCORE_RATIO_LIMIT 0x620; the kernel's intel_uncore_frequency driver
// writes kHz / 100 000 as the ratio, so a kHz value between steps is cut
// down to the step below).
inline constexpr double kIntelUncoreStepHz = 100e6;

class UncoreLadder {
 public:
  // No level: nothing to choose (no uncore control here).
  UncoreLadder() = default;
  // `hz` in any order; kept strictly descending, duplicates and values <= 0 dropped.
  explicit UncoreLadder(std::vector<double> hz);

  // max_hz, max_hz - step, ... down to min_hz, which is always a level (a
  // range that is not a multiple of the step keeps both ends). Empty when
  // max_hz <= 0 or step_hz <= 0; one level when min_hz >= max_hz.
  static UncoreLadder from_range(double min_hz, double max_hz, double step_hz = kIntelUncoreStepHz);
  // The range of the profile's uncore_power table in `step_hz` steps, plus
  // every table point; empty when the profile has no table.
  static UncoreLadder from_profile(const MachineProfile& profile, double step_hz = kIntelUncoreStepHz);

  bool empty() const noexcept { return hz_.empty(); }
  std::size_t size() const noexcept { return hz_.size(); }
  // Level 0 is the fastest; `level` past the slowest gives the slowest. Needs !empty().
  double hz(std::size_t level) const noexcept { return hz_[level < hz_.size() ? level : hz_.size() - 1]; }
  double fastest_hz() const noexcept { return hz_.empty() ? 0 : hz_.front(); }
  double slowest_hz() const noexcept { return hz_.empty() ? 0 : hz_.back(); }
  // The level whose frequency is closest to `hz` (the faster one on a tie). Needs !empty().
  std::size_t nearest_level(double hz) const noexcept;
  const std::vector<double>& levels_hz() const noexcept { return hz_; }

 private:
  std::vector<double> hz_;
};

}  // namespace rubato
