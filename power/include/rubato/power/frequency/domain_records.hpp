// Per clock domain: the latest level the engine asked for and how many changes
// a back-end carried out. One cache line per domain, so that deciding threads
// of different domains never share a line (domain_level_changed may run on
// several threads at once).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "rubato/core/base/types.hpp"

namespace rubato {

class DomainRecords {
 public:
  static constexpr Level kNoLevel = -1;  // nothing requested yet

  void reset(std::size_t domains) {
    count_ = domains;
    records_ = std::make_unique<Record[]>(domains == 0 ? 1 : domains);
  }
  std::size_t size() const noexcept { return count_; }
  bool valid(DomainId d) const noexcept { return d < count_; }

  // Stores the request; returns the sequence number it got (1, 2, ...).
  std::uint64_t request(DomainId d, Level level, double hz) noexcept {
    Record& r = records_[d];
    r.level.store(level, std::memory_order_relaxed);
    r.hz.store(hz, std::memory_order_relaxed);
    return r.sequence.fetch_add(1, std::memory_order_release) + 1;
  }
  std::uint64_t sequence(DomainId d) const noexcept { return records_[d].sequence.load(std::memory_order_acquire); }
  Level level(DomainId d) const noexcept { return records_[d].level.load(std::memory_order_relaxed); }
  double hz(DomainId d) const noexcept { return records_[d].hz.load(std::memory_order_relaxed); }

  // For back-ends whose change takes effect at once (emulator, dry run): the
  // request counts as applied when it differs from the previous one.
  void apply_at_once(DomainId d, Level level, double hz) noexcept {
    if (!valid(d)) return;
    Record& r = records_[d];
    r.hz.store(hz, std::memory_order_relaxed);
    r.sequence.fetch_add(1, std::memory_order_release);
    // The first request sets the starting tempo; only later ones are transitions.
    const Level before = r.level.exchange(level, std::memory_order_relaxed);
    if (before != level && before != kNoLevel) count_applied(d);
  }

  void count_applied(DomainId d) noexcept { records_[d].applied.fetch_add(1, std::memory_order_relaxed); }
  std::uint64_t applied(DomainId d) const noexcept {
    return valid(d) ? records_[d].applied.load(std::memory_order_relaxed) : 0;
  }

 private:
  struct alignas(kCacheLine) Record {
    std::atomic<std::uint64_t> sequence{0};
    std::atomic<Level> level{kNoLevel};
    std::atomic<double> hz{0};
    std::atomic<std::uint64_t> applied{0};
  };
  std::size_t count_ = 0;
  std::unique_ptr<Record[]> records_;
};

}  // namespace rubato
