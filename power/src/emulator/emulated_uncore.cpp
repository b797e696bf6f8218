#include "rubato/power/emulator/emulated_uncore.hpp"

#include <cmath>

#include "rubato/core/model/time_model.hpp"
#include "rubato/power/frequency/uncore_ladder.hpp"
#include "rubato/power/machine/profile.hpp"

namespace rubato {

EmulatedUncore emulated_uncore(const OperatingPoint* point, const MachineProfile* profile) {
  EmulatedUncore u;
  if (point == nullptr || profile == nullptr) return u;
  // The ladder min-energy's modelled lever has (make_uncore_lever, power/src/session/session.cpp).
  const UncoreLadder ladder = UncoreLadder::from_profile(*profile);
  if (ladder.empty()) return u;
  u.point = point;
  u.memory_bandwidth_knee_hz = profile->memory_bandwidth_knee_hz.value_or(0);
  u.fastest_uncore_hz = ladder.fastest_hz();
  u.slowest_uncore_hz = ladder.slowest_hz();
  return u;
}

EmulatedUncore emulated_plant_uncore(const OperatingPoint* point, const MachineProfile* profile,
                                     const MachineProfile* plant_profile, WorkSensitivity shares, double exponent) {
  EmulatedUncore u = emulated_uncore(point, profile);
  u.plant = true;
  u.plant_shares = shares;
  u.uncore_exponent = exponent;
  if (plant_profile) u.memory_bandwidth_knee_hz = plant_profile->memory_bandwidth_knee_hz.value_or(0);
  return u;
}

bool uncore_may_stretch(const EmulatedUncore& u) noexcept {
  if (u.point == nullptr) return false;
  const ReferenceSetting reference{0, u.fastest_uncore_hz, u.memory_bandwidth_knee_hz};
  return uncore_time_stretch(u.slowest_uncore_hz, reference) > 1.0;
}

void make_stretch_coefficients(StretchCoefficients& c, double uncore_hz, const WorkSensitivity& sensitivity,
                               double reference_uncore_hz, double beta, double max_hz, double memory_bandwidth_knee_hz,
                               double uncore_exponent) noexcept {
  c.seen_uncore_hz = uncore_hz;
  c.seen_sensitivity = sensitivity;
  c.core = beta;
  c.uncore_extra = 0;
  c.uncore_hz = 0;
  c.uncore_mhz = 0;
  if (!(uncore_hz > 0)) return;  // no level in force: the β model
  // The controller stores the reference before the first level; a relaxed
  // reader may still see them in the other order: look again next time.
  if (!(reference_uncore_hz > 0)) {
    c.seen_uncore_hz = -1;
    return;
  }
  // The operating point carries the shares as floats: where the decision's
  // b_c is the emulator's β, β itself is used.
  if (static_cast<float>(sensitivity.core) != static_cast<float>(beta)) c.core = sensitivity.core;
  c.uncore_hz = uncore_hz;
  c.uncore_mhz = static_cast<std::uint64_t>(std::llround(uncore_hz * 1e-6));
  // The uncore's term of the one model: at the reference core frequency the
  // core term is 0, so this is b_u (g(f_u) − 1) exactly as extra_time_share adds it.
  const ReferenceSetting reference{max_hz, reference_uncore_hz, memory_bandwidth_knee_hz};
  if (uncore_exponent == 1.0) {
    c.uncore_extra = extra_time_share({c.core, sensitivity.uncore}, max_hz, uncore_hz, reference);
  } else {  // a plant's own shape (RUBATO_PLANT uncore_exponent)
    c.uncore_extra = sensitivity.uncore * (std::pow(uncore_time_stretch(uncore_hz, reference), uncore_exponent) - 1.0);
  }
}

}  // namespace rubato
