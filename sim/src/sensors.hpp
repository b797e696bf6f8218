// What the simulated controllers may read of the plant (plant.hpp) besides
// the scheduler's events (SimOptions::sensors): the memory-transaction
// counters and an energy meter, each present or absent, the counters biased
// and noisy as asked. The scheduler's events themselves — and the task
// durations the engine measures from them — are the sensor every run has.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>

#include "rng.hpp"
#include "rubato/core/counters/counter_sample.hpp"
#include "rubato/sim/simulator.hpp"

namespace rubato::sim::detail {

// A standard normal draw from the simulator's own generator (Box–Muller), so
// that a seed gives the same readings on every platform.
inline double standard_normal(Rng& rng) noexcept {
  const double u1 = (static_cast<double>(rng.next() >> 11) + 0.5) * 0x1.0p-53;
  const double u2 = static_cast<double>(rng.next() >> 11) * 0x1.0p-53;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

// The chip's memory transactions, counted as hardware would: work of uncore
// share b_u makes b_u · R_sat / cores transactions per second of reference
// work (R_sat the plant's), so all cores running such work at the reference
// setting read back b_u · R_sat, and slowed work makes fewer per second.
class CounterSensor {
 public:
  CounterSensor() = default;
  CounterSensor(const SensorOptions& o, double transactions_per_reference_ns, std::uint64_t seed)
      : per_ns_(o.counters ? transactions_per_reference_ns : 0),
        bias_(o.counter_bias),
        noise_(o.counter_noise),
        rng_(seed ^ 0xC0C0C0C0C0C0C0C0ull) {}

  // Whether the machine has counters that count for this plant.
  bool present() const noexcept { return per_ns_ > 0; }
  // `reference_ns` of work of uncore share `uncore` done since the last call.
  void add_work(double reference_ns, double uncore) noexcept { transactions_ += reference_ns * uncore * per_ns_; }
  // The interval of `interval_s` ending now, as a counter source gives it;
  // nullopt where there are no counters. The tally starts over.
  std::optional<counters::CounterSample> read(double interval_s) {
    const double counted = transactions_ * bias_ * (noise_ > 0 ? std::max(0.0, 1 + noise_ * standard_normal(rng_)) : 1);
    transactions_ = 0;
    if (!present()) return std::nullopt;
    counters::CounterSample sample;
    sample.elapsed_s = interval_s;
    sample.chip.mem_accesses = counted;
    return sample;
  }

 private:
  double per_ns_ = 0;
  double bias_ = 1, noise_ = 0;
  double transactions_ = 0;
  Rng rng_{0};
};

// A package energy meter over the plant: each reading is the energy since
// the last one, with relative noise; nullopt where the machine has none.
class MeterSensor {
 public:
  MeterSensor() = default;
  MeterSensor(const SensorOptions& o, std::uint64_t seed)
      : present_(o.meter), noise_(o.meter_noise), rng_(seed ^ 0xE7E7E7E7E7E7E7E7ull) {}

  bool present() const noexcept { return present_; }
  // `plant_j`: the plant's energy since the start; the reading is the part since the last call.
  std::optional<double> read(double plant_j) {
    const double interval_j = plant_j - last_j_;
    last_j_ = plant_j;
    if (!present_) return std::nullopt;
    return interval_j * (noise_ > 0 ? std::max(0.0, 1 + noise_ * standard_normal(rng_)) : 1);
  }

 private:
  bool present_ = false;
  double noise_ = 0;
  double last_j_ = 0;
  Rng rng_{0};
};

}  // namespace rubato::sim::detail
