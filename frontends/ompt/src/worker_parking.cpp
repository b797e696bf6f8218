#include "worker_parking.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <ctime>

namespace rubato::ompt {

WorkerParking::WorkerParking(std::size_t max_workers, const Clock& clock)
    : workers_(max_workers), slots_(std::make_unique<Slot[]>(max_workers)), clock_(clock) {}

void WorkerParking::wake(Slot& s) noexcept {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&s.request), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

void WorkerParking::apply(std::span<const std::uint8_t> parked, double max_wait_s) noexcept {
  if (released_.load(std::memory_order_acquire)) return;
  max_wait_ns_.store(static_cast<std::uint64_t>(max_wait_s > 0 ? max_wait_s * 1e9 : 0), std::memory_order_relaxed);
  for (std::size_t w = 0; w < workers_; ++w) {
    Slot& s = slots_[w];
    const bool want = w < parked.size() && parked[w] != 0;
    const std::uint32_t current = s.request.load(std::memory_order_relaxed);
    if (want && current == 0) {
      if (++next_request_ == 0) ++next_request_;  // 0 means "run"
      s.request.store(next_request_, std::memory_order_release);
    } else if (!want && current != 0) {
      s.request.store(0, std::memory_order_release);
      wake(s);
    }
  }
}

void WorkerParking::release_all() noexcept {
  released_.store(true, std::memory_order_release);
  for (std::size_t w = 0; w < workers_; ++w) {
    slots_[w].request.store(0, std::memory_order_release);
    wake(slots_[w]);
  }
}

void WorkerParking::park(WorkerId w) noexcept {
  if (w >= workers_) return;
  Slot& s = slots_[w];
  const std::uint32_t request = s.request.load(std::memory_order_acquire);
  if (request == 0 || request == s.served) return;
  const std::uint64_t start = clock_.now_ns();
  const std::uint64_t deadline = start + max_wait_ns_.load(std::memory_order_relaxed);
  s.waits.fetch_add(1, std::memory_order_relaxed);
  std::uint64_t now = start;
  while (s.request.load(std::memory_order_acquire) == request && !released_.load(std::memory_order_acquire) &&
         now < deadline) {
    const std::uint64_t left = deadline - now;
    timespec timeout{static_cast<time_t>(left / 1'000'000'000), static_cast<long>(left % 1'000'000'000)};
    // Returns at once if the word no longer holds `request` (withdrawn meanwhile).
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&s.request), FUTEX_WAIT_PRIVATE, request, &timeout, nullptr, 0);
    now = clock_.now_ns();
  }
  // A request is waited out once: after its bound the worker runs until the
  // controller decides again (it then issues a new request).
  s.served = request;
  s.waited_ns.fetch_add(now - start, std::memory_order_relaxed);
}

std::optional<double> WorkerParking::waited_s(std::uint64_t w) const noexcept {
  if (w >= workers_) return std::nullopt;
  return static_cast<double>(slots_[w].waited_ns.load(std::memory_order_relaxed)) * 1e-9;
}

std::optional<std::uint64_t> WorkerParking::waits(std::uint64_t w) const noexcept {
  if (w >= workers_) return std::nullopt;
  return slots_[w].waits.load(std::memory_order_relaxed);
}

}  // namespace rubato::ompt
