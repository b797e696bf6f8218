// Save and restore, step 2 of 4 (after state_file; restore_guard and
// restore_saved_state run it).
//
// Putting cpufreq policies (and intel_uncore_frequency domains, which have
// only their min/max limits) back exactly as saved. Built before any change;
// restoring then allocates nothing and uses only open/read/write/close, so it
// is safe inside a signal handler (async-signal-safe) as well as at exit and
// in `rubato restore`: one code path for all three.
//
// Order per policy: scaling_min_freq / scaling_max_freq so that min <= max
// holds after each write (max first when the saved min is above the current
// max), then scaling_governor, then scaling_setspeed only if it still differs
// (the kernel shows "<unsupported>" again once the governor is not userspace).
// Each file is written only when its bytes differ from the saved ones.
#pragma once

#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

#include "rubato/power/frequency/frequency_control.hpp"
#include "rubato/power/state/state_file.hpp"

namespace rubato {

class CpufreqRestorePlan {
 public:
  // `state_file`: deleted once every policy is restored ("" = none).
  CpufreqRestorePlan(const MachineState& state, std::string state_file);

  // Restores every policy; a failing policy does not stop the others; deletes
  // the state file when all succeeded (else keeps it for `rubato restore`).
  // Returns the number that failed. Async-signal-safe; restores at most once.
  int restore_now() noexcept;
  // True once restore_now() ran (the back-end stops writing from then on).
  bool restored() const noexcept { return done_.load(std::memory_order_acquire); }
  // The back-end's mid-run writes go between these two: a write does not
  // begin once a restore has started (begin_write() false: write nothing), and
  // restore_now() waits, briefly and async-signal-safely, for one in flight,
  // so no frequency lands after the machine was given back.
  bool begin_write() noexcept;
  void end_write() noexcept;
  // After restore_now(): which policy (by index) failed, for messages outside signal context.
  bool policy_failed(std::size_t i) const noexcept { return i < failed_.size() && failed_[i]; }
  std::size_t policies() const noexcept { return dirs_.size(); }
  const std::string& policy_dir(std::size_t i) const { return dirs_[i]; }
  RestoreOutcome outcome() const;

 private:
  bool restore_policy(std::size_t i) noexcept;

  std::string state_file_;
  std::vector<std::string> dirs_;
  // paths_[i][f] / saved_[i][f]: file f of control_files(kind) of entry i.
  std::vector<std::vector<std::string>> paths_;
  std::vector<std::vector<std::string>> saved_;
  std::vector<char> failed_;
  std::vector<char> uncore_;  // entry i is an uncore domain (kUncoreControlFiles)
  std::atomic<bool> started_{false};
  std::atomic<bool> done_{false};
  std::atomic<int> writers_{0};
  std::atomic<long> writer_tid_{0};  // the last thread that began a write
};

}  // namespace rubato
