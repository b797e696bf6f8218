// The uncore part of the DVFS emulator's stretch (docs/min-energy.md "For the
// emulator"). Where min-energy moves a modelled uncore, a segment of CPU time
// d run at core frequency f is followed by
//
//   d · [b_c (f_max/f − 1) + b_u (g(f_u) − 1)]
//
// of busy time: the one time model's extra (rubato/core/model/time_model.hpp),
// f_u the uncore level in force and b_c, b_u the work's sensitivities, all
// three from the session's operating point (rubato/power/session/
// operating_point.hpp), written by the controller thread at most once per
// control interval. Each worker keeps its own copy of the coefficients and
// recomputes them only when the operating point it reads differs from the
// one they were made for: a segment's path does two relaxed loads of a line
// that is rarely written, and no division for g.
#pragma once

#include <cmath>
#include <cstdint>

#include "rubato/core/model/work_sensitivity.hpp"

namespace rubato {

class OperatingPoint;
struct MachineProfile;

// What the emulator needs to follow the uncore level.
struct EmulatedUncore {
  const OperatingPoint* point = nullptr;  // the session's; null: the β-only emulator
  double memory_bandwidth_knee_hz = 0;    // the profile's (ReferenceSetting)
  double fastest_uncore_hz = 0;           // the modelled uncore ladder's ends; 0: no ladder
  double slowest_uncore_hz = 0;
  // RUBATO_PLANT: the work's true shares, which the stretch obeys instead of
  // the operating point's (what min-energy believes), and the shape of the
  // uncore term (g^exponent); the knee above is then the plant's.
  bool plant = false;
  WorkSensitivity plant_shares;
  double uncore_exponent = 1.0;
};

// From the session's operating point (null: none) and the profile's uncore
// ladder (its uncore_power table) and knee. No point, no profile or no
// ladder: an EmulatedUncore that follows nothing.
EmulatedUncore emulated_uncore(const OperatingPoint* point, const MachineProfile* profile);
// The same obeying a plant: `shares` and `exponent`, the knee of `plant_profile`
// (the plant's machine), the ladder of `profile` (the lever's).
EmulatedUncore emulated_plant_uncore(const OperatingPoint* point, const MachineProfile* profile,
                                     const MachineProfile* plant_profile, WorkSensitivity shares, double exponent);

// Whether following the operating point can ever add time: a point, and the
// slowest uncore level slows uncore-bound work (g > 1 there). Only then does
// the emulator stretch segments at the fastest core level too.
bool uncore_may_stretch(const EmulatedUncore& uncore) noexcept;

// One worker's stretch coefficients and the operating point they were made
// for. Before any level is in force: b_c = the emulator's β, no uncore part.
struct StretchCoefficients {
  double core = 1.0;          // b_c
  double uncore_extra = 0.0;  // b_u (g(f_u) − 1), the model's uncore extra per unit of reference time
  double uncore_hz = 0;       // f_u these were made for (0: no level in force)
  std::uint64_t uncore_mhz = 0;
  // The operating point read when they were made (uncore hz −1: make them again).
  double seen_uncore_hz = 0;
  WorkSensitivity seen_sensitivity;
};

// Makes `c` for the operating point read (`uncore_hz`, `sensitivity`) and its
// reference uncore level. b_c is the decision's, or exactly `beta` where the
// decision's equals β to the operating point's float precision (so that with
// b_u = 0 the stretch is, bit for bit, the β model's). No level in force, or
// its reference not yet visible: the β-only coefficients.
void make_stretch_coefficients(StretchCoefficients& c, double uncore_hz, const WorkSensitivity& sensitivity,
                               double reference_uncore_hz, double beta, double max_hz, double memory_bandwidth_knee_hz,
                               double uncore_exponent = 1.0) noexcept;

// A stretch in ns, from a double (saturating far beyond any real run).
inline std::uint64_t stretch_ns_from(double extra_ns) noexcept {
  return extra_ns >= 1.8e19 ? ~std::uint64_t{0} >> 1 : static_cast<std::uint64_t>(std::llround(extra_ns));
}

// The busy time (ns) the emulator adds after a segment of `duration_ns`:
// d·[b_c (f_max/f − 1) + b_u (g(f_u) − 1)], the model's extra_time_share
// times d, never negative. Without an uncore part it is the β model's
// d·b_c·(f_max/f − 1), computed as it always was (0 when hz >= max_hz).
inline std::uint64_t emulated_stretch_ns(std::uint64_t duration_ns, double hz, double max_hz,
                                         const StretchCoefficients& c) noexcept {
  if (c.uncore_extra == 0) {
    if (!(hz > 0) || !(hz < max_hz) || !(c.core > 0)) return 0;
    return stretch_ns_from(static_cast<double>(duration_ns) * c.core * (max_hz / hz - 1.0));
  }
  const double core = hz > 0 && hz < max_hz ? c.core * (max_hz / hz - 1.0) : 0.0;
  const double extra = core + c.uncore_extra;
  return extra > 0 ? stretch_ns_from(static_cast<double>(duration_ns) * extra) : 0;
}

// The uncore's part of it: d·b_u (g(f_u) − 1), rounded on its own.
inline std::uint64_t emulated_uncore_stretch_ns(std::uint64_t duration_ns, const StretchCoefficients& c) noexcept {
  return c.uncore_extra > 0 ? stretch_ns_from(static_cast<double>(duration_ns) * c.uncore_extra) : 0;
}

}  // namespace rubato
