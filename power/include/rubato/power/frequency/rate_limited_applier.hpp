// Applies the engine's frequency requests off the deciding thread: the engine
// only records the latest request per domain (DomainRecords); this thread
// wakes every poll period, and for each domain whose request changed and whose
// last change is at least `min_dwell_s` old, applies the latest one. Requests
// superseded within the dwell are never applied (rate limiting per domain).
//
// A raise is not held for the dwell: the dwell bounds how often a domain
// changes, and a domain that goes down and straight back up spends at most
// one dwell lowered before the next lowering may be applied, so transitions
// stay bounded at one round trip per dwell. Holding a raise would keep work
// that has just arrived slowed (slack's raise at a wake-up, a relay), which
// costs time on the critical path — the one cost these policies must not pay.
// apply_soon() wakes the thread for such a raise instead of its next poll.
#pragma once

#include <functional>
#include <vector>

#include "rubato/power/frequency/domain_records.hpp"
#include "rubato/power/os/periodic_thread.hpp"

namespace rubato {

class RateLimitedApplier {
 public:
  // `apply(domain, hz)` performs the change; false counts a failed write.
  using Apply = std::function<bool(DomainId, double)>;

  RateLimitedApplier(DomainRecords& records, double min_dwell_s, Apply apply);
  ~RateLimitedApplier();
  RateLimitedApplier(const RateLimitedApplier&) = delete;
  RateLimitedApplier& operator=(const RateLimitedApplier&) = delete;

  void start();
  // Stops the thread; pending requests are dropped (the machine is restored next).
  void stop() noexcept;
  // One pass over the domains at time `now_ns` (the thread calls it; tests too).
  void flush_once(std::uint64_t now_ns);
  void apply_soon() noexcept { thread_.poke(); }
  std::uint64_t failed_writes() const noexcept { return failed_.load(std::memory_order_relaxed); }

 private:
  DomainRecords& records_;
  std::uint64_t dwell_ns_;
  std::uint64_t poll_ns_;
  Apply apply_;
  std::vector<std::uint64_t> seen_sequence_;
  std::vector<std::uint64_t> last_change_ns_;
  std::vector<double> applied_hz_;
  std::atomic<std::uint64_t> failed_{0};
  PeriodicThread thread_;
};

}  // namespace rubato
