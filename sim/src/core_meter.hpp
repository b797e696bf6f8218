// Busy and idle time of every simulated core at every frequency it ran at, in
// integer nanoseconds (exact and order-independent; the energy is computed
// from these once, at the end).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "rubato/sim/simulator.hpp"

namespace rubato::sim::detail {

class CoreMeter {
 public:
  CoreMeter() = default;
  CoreMeter(std::size_t cores, std::vector<double> frequencies_hz, double start_hz)
      : hz_(std::move(frequencies_hz)), cores_(cores) {
    const std::size_t start = index_of(start_hz);
    for (Core& c : cores_) {
      c.frequency = start;
      c.busy_ns.assign(hz_.size(), 0);
      c.idle_ns.assign(hz_.size(), 0);
    }
  }

  void set_busy(std::size_t core, bool busy, std::uint64_t now) {
    Core& c = cores_[core];
    bank(c, now);
    c.busy = busy;
  }
  void set_frequency(std::size_t core, double hz, std::uint64_t now) {
    Core& c = cores_[core];
    bank(c, now);
    c.frequency = index_of(hz);
  }
  void close(std::uint64_t now) {
    for (Core& c : cores_) bank(c, now);
  }
  std::vector<std::vector<CoreTime>> times() const {
    std::vector<std::vector<CoreTime>> out;
    for (const Core& c : cores_) {
      std::vector<CoreTime> per;
      for (std::size_t i = 0; i < hz_.size(); ++i)
        if (c.busy_ns[i] || c.idle_ns[i]) per.push_back(CoreTime{hz_[i], c.busy_ns[i], c.idle_ns[i]});
      out.push_back(std::move(per));
    }
    return out;
  }

 private:
  struct Core {
    bool busy = false;
    std::size_t frequency = 0;
    std::uint64_t since = 0;
    std::vector<std::uint64_t> busy_ns, idle_ns;
  };
  void bank(Core& c, std::uint64_t now) {
    (c.busy ? c.busy_ns : c.idle_ns)[c.frequency] += now - c.since;
    c.since = now;
  }
  // Frequencies come from the tempo ladder; an unknown one is added.
  std::size_t index_of(double hz) {
    for (std::size_t i = 0; i < hz_.size(); ++i)
      if (hz_[i] == hz) return i;
    hz_.push_back(hz);
    for (Core& c : cores_) {
      c.busy_ns.push_back(0);
      c.idle_ns.push_back(0);
    }
    return hz_.size() - 1;
  }
  std::vector<double> hz_;
  std::vector<Core> cores_;
};

}  // namespace rubato::sim::detail
