// The simulated machine's truth (SimOptions::plant): how long work takes at
// each core and uncore frequency and what the machine draws meanwhile. Only
// the simulator's scheduling and its sensors read it; the engine, the cost
// guard, slack and the min-energy controller get the profile they believe
// (SimOptions::profile) and what the sensors measure (sensors.hpp).
//
// Time: work of class (b_c, b_u) given at the reference setting (the fastest
// core frequency f_ref of the run's ladder, the uncore at the fastest level
// of its ladder) takes, at core f and uncore fu,
//   w · [b_c · f_ref/f + (1 − b_c) + b_u · (g(fu)^γ − 1)]
// with g the one model's uncore stretch (rubato/core/model/time_model.hpp)
// at the plant's memory-bandwidth knee, γ the plant's uncore_time_exponent;
// with b_u = 0 the β model bit for bit. Power: the plant profile's busy and
// idle power per core frequency and uncore power per uncore frequency
// (rubato/power/energy/power_model.hpp).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "rubato/core/model/time_model.hpp"
#include "rubato/power/energy/power_model.hpp"
#include "rubato/sim/simulator.hpp"

namespace rubato::sim::detail {

class Plant {
 public:
  // `f_ref`: the run's fastest core frequency; `fastest_uncore_hz`: the
  // uncore lever's fastest level (0: no uncore ladder).
  Plant(const SimOptions& options, double f_ref, double fastest_uncore_hz);

  const MachineProfile& profile() const noexcept { return profile_; }
  const std::string& name() const noexcept { return profile_.name; }
  // Whether the plant is the beliefs' profile with the model's own time law.
  bool is_the_model() const noexcept { return is_the_model_; }
  double uncore_time_exponent() const noexcept { return exponent_; }
  const ReferenceSetting& reference() const noexcept { return reference_; }

  // T(f, fu) / T(reference) for work of class `wc` (fu 0: not set, the reference).
  double stretch(const WorkClass& wc, double core_hz, double uncore_hz) const noexcept;

  double busy_w(double core_hz) const noexcept { return power_.busy_w(core_hz); }
  double idle_w(double core_hz) const noexcept { return power_.idle_w(core_hz); }
  double uncore_w(double uncore_hz) const noexcept { return power_.uncore_w(uncore_hz); }
  // The cores' energy over `times` (halted time adds nothing, [EFS] Eq. 13)
  // and the uncore's over (Hz, ns) spans (Hz 0: its constant power).
  double core_energy_j(const std::vector<std::vector<CoreTime>>& times) const noexcept;
  double uncore_energy_j(const std::vector<std::pair<double, std::uint64_t>>& spans) const noexcept;

  // Memory transactions per ns of reference work at b_u = 1 on one core: the
  // plant's R_sat / cores / 1e9 (its own profile's, else the beliefs'); 0:
  // the plant has no counter relation, so no counter can count for it.
  double transactions_per_reference_ns() const noexcept { return transactions_per_ns_; }

 private:
  MachineProfile profile_;
  PowerModel power_;
  ReferenceSetting reference_;
  double exponent_ = 1.0;
  bool is_the_model_ = true;
  double transactions_per_ns_ = 0;
};

}  // namespace rubato::sim::detail
