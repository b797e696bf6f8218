// The one model of time and power as functions of core and uncore frequency
// that the emulator, the simulator, the cost guard and `rubato model` share:
// time from time_model.hpp (the work's two sensitivities and the machine's
// memory-bandwidth knee), power of a run segment from the levels' powers:
//
//   P = Σ_busy busy_w(fc_i) + Σ_waiting idle_w(fc_j) + uncore_w(fu)
//
// Powers between two levels are interpolated linearly and clamped at the
// ends, as the profile's power model (rubato/power/energy/power_model.hpp)
// does. Pure arithmetic: no clock, no OS.
#pragma once

#include <cstddef>
#include <span>

#include "rubato/core/model/level_powers.hpp"
#include "rubato/core/model/time_model.hpp"
#include "rubato/core/model/work_sensitivity.hpp"

namespace rubato {

class FrequencyModel {
 public:
  // Throws std::invalid_argument with level_powers_error's message, or for a
  // knee that is negative or not finite (0: none, see ReferenceSetting).
  explicit FrequencyModel(LevelPowers powers, double memory_bandwidth_knee_hz = 0);

  const LevelPowers& powers() const noexcept { return powers_; }
  // The fastest core and uncore level, and the knee.
  const ReferenceSetting& reference() const noexcept { return reference_; }
  std::size_t core_levels() const noexcept { return powers_.core_hz.size(); }
  std::size_t uncore_levels() const noexcept { return powers_.uncore_hz.size(); }  // 0: no uncore ladder
  // A level past the slowest gives the slowest; uncore_hz is 0 without a ladder.
  double core_hz(std::size_t level) const noexcept;
  double uncore_hz(std::size_t level) const noexcept;

  // T(core_hz, uncore_hz) / T(reference); uncore_hz 0: the uncore at the reference.
  double time_factor(const WorkSensitivity& sensitivity, double core_hz, double uncore_hz) const noexcept {
    return rubato::time_factor(sensitivity, core_hz, uncore_hz, reference_);
  }

  double busy_w(double core_hz) const noexcept;
  double idle_w(double core_hz) const noexcept;
  // uncore_fixed_w without a ladder or when `uncore_hz` <= 0 (not set).
  double uncore_w(double uncore_hz) const noexcept;
  // One running core per entry of `busy_core_hz`, one waiting core per entry
  // of `waiting_core_hz`, the uncore at `uncore_hz` (W).
  double segment_power_w(std::span<const double> busy_core_hz, std::span<const double> waiting_core_hz,
                         double uncore_hz) const noexcept;
  // The same with every running core at `busy_hz` and every waiting one at
  // `waiting_hz`; negative counts count as 0.
  double segment_power_w(int busy_workers, double busy_hz, int waiting_workers, double waiting_hz,
                         double uncore_hz) const noexcept;

 private:
  LevelPowers powers_;
  ReferenceSetting reference_;
};

}  // namespace rubato
