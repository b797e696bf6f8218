#include "rubato/power/os/process_throttle.hpp"

#include <signal.h>

#include <chrono>

namespace rubato {

ProcessThrottle::ProcessThrottle(const Clock& clock) : clock_(clock) {
  // Fine enough that a stopped program overruns its bound by a few ms at most.
  watchdog_.start(std::chrono::milliseconds(5), [this] { watchdog(); });
}

ProcessThrottle::~ProcessThrottle() {
  watchdog_.stop();
  release_all();
}

void ProcessThrottle::add_program(std::uint64_t target, pid_t pgid) {
  std::lock_guard<std::mutex> lock(mutex_);
  programs_[target] = Program{pgid};
}

void ProcessThrottle::forget_program(std::uint64_t target) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = programs_.find(target);
  if (it == programs_.end()) return;
  resume(it->second, clock_.now_ns());  // its group may live on (a child it left behind)
  it->second.alive = false;
}

void ProcessThrottle::resume(Program& p, std::uint64_t now_ns) noexcept {
  if (!p.stopped) return;
  if (p.alive) kill(-p.pgid, SIGCONT);
  p.stopped = false;
  p.waited_ns += now_ns - p.stopped_at_ns;
}

void ProcessThrottle::apply(std::span<const std::uint8_t> parked, double max_wait_s) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (released_) return;
  max_wait_ns_ = static_cast<std::uint64_t>(max_wait_s > 0 ? max_wait_s * 1e9 : 0);
  const std::uint64_t now = clock_.now_ns();
  for (auto& [target, p] : programs_) {
    const bool want = target < parked.size() && parked[target] != 0;
    // A stop the watchdog ended is waited out once: the program runs until the
    // controller lets it run and then holds it back again.
    if (want && !p.stopped && !p.bound_ran_out && p.alive && max_wait_ns_ > 0) {
      if (kill(-p.pgid, SIGSTOP) != 0) continue;  // gone: nothing to hold
      p.stopped = true;
      p.stopped_at_ns = now;
      ++p.waits;
    } else if (!want) {
      resume(p, now);
      p.bound_ran_out = false;
    }
  }
}

void ProcessThrottle::watchdog() noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::uint64_t now = clock_.now_ns();
  for (auto& [target, p] : programs_)
    if (p.stopped && now - p.stopped_at_ns >= max_wait_ns_) {
      resume(p, now);
      p.bound_ran_out = true;
    }
}

void ProcessThrottle::release_all() noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  released_ = true;
  const std::uint64_t now = clock_.now_ns();
  for (auto& [target, p] : programs_) resume(p, now);
}

std::optional<double> ProcessThrottle::waited_s(std::uint64_t target) const noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = programs_.find(target);
  if (it == programs_.end()) return std::nullopt;
  std::uint64_t ns = it->second.waited_ns;
  if (it->second.stopped) ns += clock_.now_ns() - it->second.stopped_at_ns;
  return static_cast<double>(ns) * 1e-9;
}

std::optional<std::uint64_t> ProcessThrottle::waits(std::uint64_t target) const noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = programs_.find(target);
  if (it == programs_.end()) return std::nullopt;
  return it->second.waits;
}

}  // namespace rubato
