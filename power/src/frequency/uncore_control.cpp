#include "rubato/power/frequency/uncore_control.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "rubato/core/tempo/tempo_ladder.hpp"
#include "rubato/power/machine/profile.hpp"

namespace rubato {

std::uint64_t uncore_min_interval_ns(const MachineProfile* profile) noexcept {
  const double s = profile ? uncore_transition_latency_s(*profile) : kDefaultUncoreTransitionLatencyS;
  return static_cast<std::uint64_t>(std::llround(s * 1e9));
}

const char* to_string(UncoreSetOutcome o) noexcept {
  switch (o) {
    case UncoreSetOutcome::applied: return "applied";
    case UncoreSetOutcome::unchanged: return "unchanged";
    case UncoreSetOutcome::deferred: return "deferred";
    case UncoreSetOutcome::failed: return "failed";
  }
  return "?";
}

UncoreControl::UncoreControl(std::vector<UncoreDomain> domains, const Clock* clock, std::uint64_t min_interval_ns)
    : domains_(std::move(domains)),
      state_(std::make_unique<DomainState[]>(domains_.size())),
      own_clock_(clock ? nullptr : std::make_unique<SteadyClock>()),
      clock_(clock ? clock : own_clock_.get()),
      min_interval_ns_(min_interval_ns) {}

UncoreSetResult UncoreControl::set_level(std::size_t d, std::size_t level) {
  if (d >= domains_.size() || domains_[d].ladder.empty()) {
    UncoreSetResult r;
    r.outcome = UncoreSetOutcome::failed;
    r.why = d >= domains_.size() ? "no uncore domain " + std::to_string(d) : domains_[d].name + ": no uncore ladder";
    return r;
  }
  return carry_out(d, domains_[d].ladder.hz(level), clock_->now_ns());
}

UncoreSetResult UncoreControl::set_hz(std::size_t d, double hz) {
  if (d >= domains_.size() || domains_[d].ladder.empty()) return set_level(d, 0);
  return set_level(d, domains_[d].ladder.nearest_level(hz));
}

UncoreSetResult UncoreControl::set_all_hz(double hz) {
  std::optional<UncoreSetResult> first, failed, deferred;
  for (std::size_t d = 0; d < domains_.size(); ++d) {
    UncoreSetResult r = set_hz(d, hz);
    if (r.outcome == UncoreSetOutcome::failed && !failed) failed = r;
    if (r.outcome == UncoreSetOutcome::deferred && !deferred) deferred = r;
    if (!first) first = std::move(r);
  }
  if (failed) return *failed;
  if (deferred) return *deferred;
  return first ? *first : set_level(0, 0);  // no domain: the failure that says so
}

// The one place a domain changes: unchanged, written now, or kept pending
// until the domain's last change is min_interval_ns old.
UncoreSetResult UncoreControl::carry_out(std::size_t d, double hz, std::uint64_t now_ns) {
  DomainState& s = state_[d];
  UncoreSetResult r;
  r.hz = hz;
  if (s.current_hz.load(std::memory_order_relaxed) == hz) {
    s.pending_hz = 0;
    r.outcome = UncoreSetOutcome::unchanged;
    return r;
  }
  if (s.changed_once && now_ns - s.last_change_ns < min_interval_ns_) {
    s.pending_hz = hz;
    r.outcome = UncoreSetOutcome::deferred;
    r.due_ns = s.last_change_ns + min_interval_ns_;
    return r;
  }
  s.pending_hz = 0;
  const double set = write(d, hz, r.why);
  if (set <= 0) {
    r.outcome = UncoreSetOutcome::failed;
    if (failures_.size() < kMaxFailureLines)
      failures_.push_back(domains_[d].name + ": uncore at " + format_frequency(hz) + " not set: " + r.why);
    ++failed_writes_;
    return r;
  }
  s.current_hz.store(set, std::memory_order_relaxed);
  s.transitions.fetch_add(1, std::memory_order_relaxed);
  s.changed_once = true;
  s.last_change_ns = now_ns;
  r.hz = set;
  r.outcome = UncoreSetOutcome::applied;
  return r;
}

std::size_t UncoreControl::apply_due() {
  const std::uint64_t now = clock_->now_ns();
  std::size_t applied = 0;
  for (std::size_t d = 0; d < domains_.size(); ++d) {
    const DomainState& s = state_[d];
    if (s.pending_hz <= 0 || now - s.last_change_ns < min_interval_ns_) continue;
    applied += carry_out(d, s.pending_hz, now).outcome == UncoreSetOutcome::applied;
  }
  return applied;
}

std::uint64_t UncoreControl::next_due_ns() const noexcept {
  std::uint64_t next = kNever;
  for (std::size_t d = 0; d < domains_.size(); ++d)
    if (state_[d].pending_hz > 0) next = std::min(next, state_[d].last_change_ns + min_interval_ns_);
  return next;
}

double UncoreControl::current_hz(std::size_t d) const noexcept {
  return d < domains_.size() ? state_[d].current_hz.load(std::memory_order_relaxed) : 0;
}

std::uint64_t UncoreControl::transitions(std::size_t d) const noexcept {
  return d < domains_.size() ? state_[d].transitions.load(std::memory_order_relaxed) : 0;
}

std::uint64_t UncoreControl::transitions() const noexcept {
  std::uint64_t n = 0;
  for (std::size_t d = 0; d < domains_.size(); ++d) n += transitions(d);
  return n;
}

void UncoreControl::set_initial_hz(std::size_t d, double hz) noexcept {
  if (d < domains_.size()) state_[d].current_hz.store(hz, std::memory_order_relaxed);
}

}  // namespace rubato
