#include "rubato/core/model/time_model.hpp"

#include <algorithm>

namespace rubato {

double uncore_time_stretch(double uncore_hz, const ReferenceSetting& reference) noexcept {
  const double fu = uncore_hz, fu_ref = reference.uncore_hz;
  if (!(fu > 0) || !(fu_ref > 0)) return 1.0;  // no uncore ladder: the uncore term stays 1
  const double knee = reference.memory_bandwidth_knee_hz;
  if (!(knee > 0)) return fu_ref / fu;
  return std::max(1.0, knee / fu) / std::max(1.0, knee / fu_ref);
}

double extra_time_share(const WorkSensitivity& s, double core_hz, double uncore_hz,
                        const ReferenceSetting& reference) noexcept {
  const double core_stretch = core_hz > 0 && reference.core_hz > 0 ? reference.core_hz / core_hz : 1.0;
  return s.core * (core_stretch - 1.0) + s.uncore * (uncore_time_stretch(uncore_hz, reference) - 1.0);
}

}  // namespace rubato
