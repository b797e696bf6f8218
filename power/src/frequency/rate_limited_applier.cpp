#include "rubato/power/frequency/rate_limited_applier.hpp"

#include <algorithm>
#include <chrono>

namespace rubato {
namespace {

std::uint64_t steady_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

}  // namespace

RateLimitedApplier::RateLimitedApplier(DomainRecords& records, double min_dwell_s, Apply apply)
    : records_(records),
      dwell_ns_(static_cast<std::uint64_t>(std::max(0.0, min_dwell_s) * 1e9)),
      // Poll at the dwell, but at least every 10 ms and at most every 100 us.
      poll_ns_(std::clamp<std::uint64_t>(dwell_ns_, 100'000, 10'000'000)),
      apply_(std::move(apply)),
      seen_sequence_(records.size(), 0),
      last_change_ns_(records.size(), 0),
      applied_hz_(records.size(), 0) {}

RateLimitedApplier::~RateLimitedApplier() { stop(); }

void RateLimitedApplier::start() {
  thread_.start(std::chrono::nanoseconds(poll_ns_), [this] { flush_once(steady_ns()); });
}

void RateLimitedApplier::stop() noexcept { thread_.stop(); }

void RateLimitedApplier::flush_once(std::uint64_t now_ns) {
  for (DomainId d = 0; d < records_.size(); ++d) {
    const std::uint64_t seq = records_.sequence(d);
    if (seq == seen_sequence_[d]) continue;
    const bool first = applied_hz_[d] == 0;
    const double hz = records_.hz(d);
    const bool raise = hz > applied_hz_[d];  // never held for the dwell (see the header)
    if (!first && !raise && now_ns - last_change_ns_[d] < dwell_ns_)
      continue;  // dwell not over: keep the latest for later
    seen_sequence_[d] = seq;
    if (hz == applied_hz_[d]) continue;  // requests cancelled each other out
    if (!apply_(d, hz)) {
      failed_.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    // The first write sets the starting tempo (the engine's first request, the
    // fastest level 0). When later requests came before the first poll it
    // already carries a later level: that is a transition, from the starting
    // tempo that was never written.
    if (!first || (seq > 1 && records_.level(d) != 0)) records_.count_applied(d);
    applied_hz_[d] = hz;
    last_change_ns_[d] = now_ns;
  }
}

}  // namespace rubato
