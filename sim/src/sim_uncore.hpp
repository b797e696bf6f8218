// The simulated uncore: one frequency shared by every worker (the uncore is
// the package's, not a core's; [Cuttlefish] and the live controller set all
// packages alike), how long it spent at each frequency (the energy is charged
// from these, at the profile's uncore_power), and its changes. Three modes:
//  - pinned (`simulate --uncore`): fixed at that frequency;
//  - not set (0 Hz): the hardware's own setting, taken as the fastest level
//    for time (no uncore stretch) and charged the profile's constant uncore_w,
//    as a modelled live run without RUBATO_UNCORE is;
//  - controlled: moved by a ModeledUncoreControl over the profile's ladder,
//    from its fastest level, the live back-end's rate limit included
//    (uncore_min_interval_ns: the profile's uncore_transition_latency_s, else
//    10 ms).
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "rubato/core/base/clock.hpp"
#include "rubato/power/frequency/uncore_control_modeled.hpp"
#include "rubato/power/frequency/uncore_ladder.hpp"
#include "rubato/power/machine/profile.hpp"

namespace rubato::sim::detail {

class SimUncore {
 public:
  SimUncore() = default;
  // `pinned_hz` > 0: pinned (`controlled` is then ignored). `clock` must
  // outlive this (the simulator's clock: the rate limit runs on simulated time).
  SimUncore(const MachineProfile& profile, double pinned_hz, bool controlled, const Clock& clock)
      : ladder_(UncoreLadder::from_profile(profile)), pinned_(pinned_hz > 0) {
    if (pinned_) {
      hz_ = pinned_hz;
    } else if (controlled && !ladder_.empty()) {
      hz_ = ladder_.fastest_hz();
      control_ = std::make_unique<ModeledUncoreControl>(ladder_, 1, hz_, &clock, uncore_min_interval_ns(&profile));
    }
  }

  // The frequency set now (0: not set), for the time model and the power model.
  double hz() const noexcept { return hz_; }
  // The same, with "not set" read as the ladder's fastest (0 without a ladder).
  double effective_hz(double hz) const noexcept { return hz > 0 ? hz : ladder_.fastest_hz(); }
  bool pinned() const noexcept { return pinned_; }
  bool controlled() const noexcept { return control_ != nullptr; }
  const UncoreLadder& ladder() const noexcept { return ladder_; }
  std::uint64_t min_interval_ns() const noexcept { return control_ ? control_->min_interval_ns() : 0; }

  // Asks for ladder level `level`. Returns whether the frequency changed now
  // (else the rate limit holds the request until apply_due finds it due).
  bool request(std::size_t level, std::uint64_t now) {
    if (!control_) return false;
    bank(now);
    control_->set_level(0, level);
    return follow();
  }
  // A held request whose time has come: carried out. Returns whether the frequency changed.
  bool apply_due(std::uint64_t now) {
    if (!control_) return false;
    bank(now);
    control_->apply_due();
    return follow();
  }
  std::uint64_t transitions() const noexcept { return control_ ? control_->transitions() : 0; }

  void close(std::uint64_t now) { bank(now); }
  // The same at `now`, the open span included, without banking.
  std::vector<std::pair<double, std::uint64_t>> time_at_hz_until(std::uint64_t now) const {
    std::vector<std::pair<double, std::uint64_t>> t = time_;
    if (now > since_) t.emplace_back(hz_, now - since_);
    return t;
  }
  // (Hz, ns) for every frequency the uncore had, in the order first seen.
  const std::vector<std::pair<double, std::uint64_t>>& time_at_hz() const noexcept { return time_; }

 private:
  void bank(std::uint64_t now) {
    if (now > since_) {
      auto it = time_.begin();
      while (it != time_.end() && it->first != hz_) ++it;
      if (it == time_.end()) it = time_.insert(time_.end(), {hz_, 0});
      it->second += now - since_;
    }
    since_ = now;
  }
  bool follow() noexcept {
    const double now_hz = control_->current_hz(0);
    if (now_hz == hz_) return false;
    hz_ = now_hz;
    return true;
  }

  UncoreLadder ladder_;
  bool pinned_ = false;
  double hz_ = 0;
  std::unique_ptr<ModeledUncoreControl> control_;
  std::uint64_t since_ = 0;
  std::vector<std::pair<double, std::uint64_t>> time_;
};

}  // namespace rubato::sim::detail
