#include "rubato/core/min_energy/sensitivity_source.hpp"

#include <algorithm>
#include <cmath>

namespace rubato::min_energy {

std::string_view to_string(SensitivitySource source) noexcept {
  switch (source) {
    case SensitivitySource::counters: return "counters";
    case SensitivitySource::settings: return "settings";
    case SensitivitySource::profile: return "profile";
  }
  return "?";
}

std::optional<double> memory_transaction_rate(const counters::CounterSample& sample, std::string& why) {
  if (!(sample.elapsed_s > 0)) {
    why = "no interval";
    return std::nullopt;
  }
  if (sample.chip.mem_accesses) return *sample.chip.mem_accesses / sample.elapsed_s;
  double misses = 0;
  bool any = false;
  for (const counters::ThreadCounts& t : sample.threads)
    if (t.llc_misses) {
      misses += *t.llc_misses;
      any = true;
    }
  if (any) return misses / sample.elapsed_s;
  why = "the interval counted neither the chip's memory accesses nor any thread's last-level cache misses";
  return std::nullopt;
}

double uncore_share_from_rate(double rate_per_s, double saturated_rate_per_s) noexcept {
  if (!(saturated_rate_per_s > 0) || !std::isfinite(rate_per_s)) return 0;
  return std::clamp(rate_per_s / saturated_rate_per_s, 0.0, 1.0);
}

SensitivityReading read_sensitivity(std::optional<double> counter_uncore, const SensitivityFallbacks& f) {
  SensitivityReading r;
  if (counter_uncore) {
    r.value.uncore = std::clamp(*counter_uncore, 0.0, 1.0);
    r.uncore_source = SensitivitySource::counters;
  } else if (f.settings_uncore) {
    r.value.uncore = std::clamp(*f.settings_uncore, 0.0, 1.0);
    r.uncore_source = SensitivitySource::settings;
  } else {
    r.value.uncore = std::clamp(f.profile.uncore, 0.0, 1.0);
    r.uncore_source = SensitivitySource::profile;
  }
  const double core = f.settings_core ? *f.settings_core : f.profile.core;
  r.core_source = f.settings_core ? SensitivitySource::settings : SensitivitySource::profile;
  r.value.core = std::clamp(core, 0.0, 1.0 - r.value.uncore);
  return r;
}

}  // namespace rubato::min_energy
