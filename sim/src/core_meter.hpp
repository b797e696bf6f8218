// Busy, idle and halted time of every simulated core at every frequency it ran
// at, in integer nanoseconds (exact and order-independent; the energy is
// computed from these once, at the end), and how long each number of cores was
// busy at once ([EFS] Eq. 13's power depends on that count).
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
      c.halted_ns.assign(hz_.size(), 0);
    }
    busy_count_ns_.assign(cores + 1, 0);
  }

  enum class State : std::uint8_t { idle, busy, halted };

  void set_state(std::size_t core, State state, std::uint64_t now) {
    Core& c = cores_[core];
    bank(c, now);
    bank_count(now);
    if (c.state == State::busy) --busy_now_;
    if (state == State::busy) ++busy_now_;
    c.state = state;
  }
  void set_busy(std::size_t core, bool busy, std::uint64_t now) {
    set_state(core, busy ? State::busy : State::idle, now);
  }
  void set_frequency(std::size_t core, double hz, std::uint64_t now) {
    Core& c = cores_[core];
    bank(c, now);
    c.frequency = index_of(hz);
  }
  void close(std::uint64_t now) {
    for (Core& c : cores_) bank(c, now);
    bank_count(now);
  }
  // The times as they stand at `now` (the open spans included), without banking.
  std::vector<std::vector<CoreTime>> times_at(std::uint64_t now) const {
    CoreMeter copy = *this;
    copy.close(now);
    return copy.times();
  }
  // [n]: time exactly n cores were busy.
  const std::vector<std::uint64_t>& busy_count_ns() const noexcept { return busy_count_ns_; }
  std::vector<std::vector<CoreTime>> times() const {
    std::vector<std::vector<CoreTime>> out;
    for (const Core& c : cores_) {
      std::vector<CoreTime> per;
      for (std::size_t i = 0; i < hz_.size(); ++i)
        if (c.busy_ns[i] || c.idle_ns[i] || c.halted_ns[i])
          per.push_back(CoreTime{hz_[i], c.busy_ns[i], c.idle_ns[i], c.halted_ns[i]});
      out.push_back(std::move(per));
    }
    return out;
  }

 private:
  struct Core {
    State state = State::idle;
    std::size_t frequency = 0;
    std::uint64_t since = 0;
    std::vector<std::uint64_t> busy_ns, idle_ns, halted_ns;
  };
  void bank(Core& c, std::uint64_t now) {
    auto& bucket = c.state == State::busy ? c.busy_ns : c.state == State::idle ? c.idle_ns : c.halted_ns;
    bucket[c.frequency] += now - c.since;
    c.since = now;
  }
  void bank_count(std::uint64_t now) {
    busy_count_ns_[busy_now_] += now - count_since_;
    count_since_ = now;
  }
  // Frequencies come from the tempo ladder; an unknown one is added.
  std::size_t index_of(double hz) {
    for (std::size_t i = 0; i < hz_.size(); ++i)
      if (hz_[i] == hz) return i;
    hz_.push_back(hz);
    for (Core& c : cores_) {
      c.busy_ns.push_back(0);
      c.idle_ns.push_back(0);
      c.halted_ns.push_back(0);
    }
    return hz_.size() - 1;
  }
  std::vector<double> hz_;
  std::vector<Core> cores_;
  std::vector<std::uint64_t> busy_count_ns_;
  std::size_t busy_now_ = 0;
  std::uint64_t count_since_ = 0;
};

}  // namespace rubato::sim::detail
