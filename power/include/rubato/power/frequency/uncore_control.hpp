// The uncore lever a policy moves at run time (docs/uncore.md): per uncore
// domain (a package, or a die of one), a ladder of frequencies to choose
// from and set_level() / set_hz(), rate-limited per domain by the machine's
// uncore transition latency. Two implementations: SysfsUncoreControl
// (intel_uncore_frequency, rubato/power/frequency/uncore_control_sysfs.hpp)
// changes the machine and gives it back; ModeledUncoreControl
// (rubato/power/frequency/uncore_control_modeled.hpp) only records the
// level, for the emulator and the simulator to apply to the uncore-sensitive
// part of the work.
//
// Threads: set_*, apply_due and restore belong to the controller thread (one
// thread; never a task's path: a sysfs write is a system call).
// current_hz(), transitions() and the ladders may be read from any thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rubato/core/base/clock.hpp"
#include "rubato/power/frequency/frequency_control.hpp"
#include "rubato/power/frequency/uncore_ladder.hpp"

namespace rubato {

struct MachineProfile;

// The least time between two changes of one uncore domain: the profile's
// uncore transition latency (its default where the profile gives none or
// `profile` is nullptr; rubato/power/machine/profile.hpp).
std::uint64_t uncore_min_interval_ns(const MachineProfile* profile) noexcept;

struct UncoreDomain {
  std::string name;     // "package_00_die_01", "uncore03", "modeled0"
  int package = -1;     // -1 when unknown
  UncoreLadder ladder;  // the frequencies this domain may be set to, fastest first
};

enum class UncoreSetOutcome {
  applied,    // written now
  unchanged,  // already there (a pending request, if any, is dropped)
  deferred,   // within the rate limit: kept as the domain's pending request, apply_due() writes it
  failed,     // not written; `why` says why (the domain keeps its previous setting)
};
const char* to_string(UncoreSetOutcome o) noexcept;

struct UncoreSetResult {
  UncoreSetOutcome outcome = UncoreSetOutcome::unchanged;
  double hz = 0;             // the ladder frequency requested (clamped and snapped)
  std::uint64_t due_ns = 0;  // deferred: the earliest time apply_due() writes it
  std::string why;           // failed
};

class UncoreControl {
 public:
  static constexpr std::uint64_t kNever = ~std::uint64_t{0};

  // `clock`: must outlive this; nullptr = a SteadyClock of its own.
  // `min_interval_ns`: the least time between two changes of one domain
  // (uncore_min_interval_ns(profile)).
  UncoreControl(std::vector<UncoreDomain> domains, const Clock* clock, std::uint64_t min_interval_ns);
  virtual ~UncoreControl() = default;
  UncoreControl(const UncoreControl&) = delete;
  UncoreControl& operator=(const UncoreControl&) = delete;

  virtual std::string_view name() const noexcept = 0;
  // True when a set changes how fast the uncore really runs here.
  virtual bool changes_speed() const noexcept = 0;
  // Gives the machine back (the original limits); later sets fail. Idempotent.
  virtual RestoreOutcome restore() noexcept = 0;

  std::size_t domains() const noexcept { return domains_.size(); }
  const UncoreDomain& domain(std::size_t d) const { return domains_.at(d); }
  const UncoreLadder& ladder(std::size_t d) const { return domains_.at(d).ladder; }
  std::uint64_t min_interval_ns() const noexcept { return min_interval_ns_; }

  // Domain `d` at ladder level `level` (0 fastest; past the slowest: the slowest).
  UncoreSetResult set_level(std::size_t d, std::size_t level);
  // Domain `d` at the ladder level nearest `hz` (so clamped to the domain's range).
  UncoreSetResult set_hz(std::size_t d, double hz);
  // Every domain at the level nearest `hz`; the result of the first that did
  // not apply (failed before deferred), else of the first domain.
  UncoreSetResult set_all_hz(double hz);
  // Writes every pending request whose time has come; returns how many.
  std::size_t apply_due();
  // The earliest time a pending request becomes due; kNever when none is pending.
  std::uint64_t next_due_ns() const noexcept;

  // What rubato last set on `d` (Hz); 0 before its first set: the hardware
  // (or, modelled, the initial setting) decides. Any thread.
  double current_hz(std::size_t d) const noexcept;
  // Changes carried out on `d` / on every domain. Any thread.
  std::uint64_t transitions(std::size_t d) const noexcept;
  std::uint64_t transitions() const noexcept;
  // Writes that failed: how many, and the first few, one line each (for the report's notes).
  std::uint64_t failed_writes() const noexcept { return failed_writes_; }
  const std::vector<std::string>& failures() const noexcept { return failures_; }

 protected:
  // Sets domain `d` to `hz` (a level of its ladder). Returns the frequency
  // really set (Hz), or 0 + `why` when nothing changed.
  virtual double write(std::size_t d, double hz, std::string& why) = 0;
  // For an implementation that starts from a known setting (modelled).
  void set_initial_hz(std::size_t d, double hz) noexcept;

 private:
  struct DomainState {
    std::atomic<double> current_hz{0};
    std::atomic<std::uint64_t> transitions{0};
    bool changed_once = false;
    std::uint64_t last_change_ns = 0;
    double pending_hz = 0;  // 0: none
  };
  UncoreSetResult carry_out(std::size_t d, double hz, std::uint64_t now_ns);

  std::vector<UncoreDomain> domains_;
  std::unique_ptr<DomainState[]> state_;
  std::unique_ptr<Clock> own_clock_;
  const Clock* clock_;
  std::uint64_t min_interval_ns_;
  static constexpr std::size_t kMaxFailureLines = 8;
  std::vector<std::string> failures_;
  std::uint64_t failed_writes_ = 0;
};

}  // namespace rubato
