// How long work takes at a core and an uncore frequency, relative to the
// reference setting (the fastest of both). With b_c, b_u the work's
// sensitivities (work_sensitivity.hpp):
//
//   T(fc, fu) / T(fc_ref, fu_ref) = b_c · fc_ref/fc + b_u · g(fu) + (1 − b_c − b_u)
//   g(fu) = max(1, f_k/fu) / max(1, f_k/fu_ref)
//
// The uncore part is bytes / BW(fu) with BW(fu) = min(BW_max, k · fu): the
// uncore moves at most k bytes per cycle and memory at most BW_max, so above
// the knee f_k = BW_max / k the uncore clock does not limit the bandwidth and
// below it the time grows as f_k / fu (benchmarks/cuttlefish/README.md, "The
// model": one knee fits the six programs of [Cuttlefish]'s sweep to 0.41 %
// rms, plain 1/fu scaling to 3.8 %). Pure arithmetic: no clock, no OS.
#pragma once

#include "rubato/core/model/work_sensitivity.hpp"

namespace rubato {

// The setting time factors are relative to, and the machine's knee.
struct ReferenceSetting {
  double core_hz = 0;    // fc_ref: the fastest core level
  double uncore_hz = 0;  // fu_ref: the fastest uncore level; 0: no uncore ladder
  // f_k; 0 where the profile gives none: g is then plain fu_ref / fu, every
  // uncore cycle counted as limiting (the pessimistic reading, which the
  // measured sweep contradicts above the knee).
  double memory_bandwidth_knee_hz = 0;
};

// g(fu): how much longer the uncore-sensitive part takes at `uncore_hz` than
// at the reference. 1 when there is no uncore ladder (either frequency <= 0).
double uncore_time_stretch(double uncore_hz, const ReferenceSetting& reference) noexcept;

// T(fc, fu) / T(reference) − 1: the extra time per unit of reference time,
// computed as b_c (fc_ref/fc − 1) + b_u (g − 1) so that with b_u = 0 it is,
// bit for bit, the β model's extra the emulator adds (β (f_max/f − 1)).
// `core_hz` <= 0 counts as the reference; the sensitivity is used as given
// (sensitivity_error checks it).
double extra_time_share(const WorkSensitivity& sensitivity, double core_hz, double uncore_hz,
                        const ReferenceSetting& reference) noexcept;
// T(fc, fu) / T(reference) = 1 + extra_time_share: with b_u = 0 exactly the
// cost guard's stretch 1 + β (f/f' − 1).
inline double time_factor(const WorkSensitivity& sensitivity, double core_hz, double uncore_hz,
                          const ReferenceSetting& reference) noexcept {
  return 1.0 + extra_time_share(sensitivity, core_hz, uncore_hz, reference);
}

}  // namespace rubato
