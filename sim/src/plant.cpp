#include "plant.hpp"

#include <cmath>

namespace rubato::sim::detail {

Plant::Plant(const SimOptions& o, double f_ref, double fastest_uncore_hz)
    : profile_(o.plant.profile ? *o.plant.profile : o.profile),
      power_(profile_),
      exponent_(o.plant.uncore_time_exponent) {
  is_the_model_ = !o.plant.profile && exponent_ == 1.0;
  reference_.core_hz = f_ref;
  reference_.uncore_hz = fastest_uncore_hz;
  reference_.memory_bandwidth_knee_hz = profile_.memory_bandwidth_knee_hz.value_or(0);
  const double saturated = profile_.memory_transaction_rate_saturated_per_s.value_or(
      o.profile.memory_transaction_rate_saturated_per_s.value_or(0));
  if (saturated > 0 && o.profile.cores > 0) transactions_per_ns_ = saturated / o.profile.cores * 1e-9;
}

// The core part in the β model's own form, the uncore part added only for
// uncore-sensitive work: with b_u = 0, or the model's γ = 1 and the plant's
// knee, today's rates bit for bit.
double Plant::stretch(const WorkClass& wc, double core_hz, double uncore_hz) const noexcept {
  double s = wc.beta * reference_.core_hz / core_hz + (1 - wc.beta);
  if (wc.uncore != 0) {
    double g = uncore_time_stretch(uncore_hz, reference_);
    if (exponent_ != 1.0) g = std::pow(g, exponent_);
    s += wc.uncore * (g - 1.0);
  }
  return s;
}

double Plant::core_energy_j(const std::vector<std::vector<CoreTime>>& times) const noexcept {
  double j = 0;
  for (const auto& core : times)
    for (const CoreTime& t : core)
      j += power_.busy_w(t.hz) * static_cast<double>(t.busy_ns) * 1e-9 +
           power_.idle_w(t.hz) * static_cast<double>(t.idle_ns) * 1e-9;
  return j;
}

double Plant::uncore_energy_j(const std::vector<std::pair<double, std::uint64_t>>& spans) const noexcept {
  double j = 0;
  for (const auto& [hz, ns] : spans) j += power_.uncore_w(hz) * static_cast<double>(ns) * 1e-9;
  return j;
}

}  // namespace rubato::sim::detail
