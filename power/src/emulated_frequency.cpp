#include "rubato/power/emulated_frequency.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace rubato {
namespace {

std::uint64_t steady_ns() noexcept {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

}  // namespace

std::uint64_t emulated_stretch_ns(std::uint64_t duration_ns, double hz, double max_hz, double beta) noexcept {
  if (!(hz > 0) || !(hz < max_hz) || !(beta > 0)) return 0;
  const double extra = static_cast<double>(duration_ns) * beta * (max_hz / hz - 1.0);
  return extra >= 1.8e19 ? ~std::uint64_t{0} >> 1 : static_cast<std::uint64_t>(std::llround(extra));
}

void burn_busy_ns(std::uint64_t ns) noexcept {
  if (ns == 0) return;
  const std::uint64_t deadline = steady_ns() + ns;
  // The clock read (vDSO) is itself the busy work; a few dependent multiplies
  // between reads keep the core's pipeline occupied like computation would.
  volatile std::uint64_t sink = 0;
  std::uint64_t x = ns | 1;
  while (steady_ns() < deadline) {
    for (int i = 0; i < 32; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
    sink = x;
  }
  (void)sink;
}

EmulatedFrequency::EmulatedFrequency(double beta, double machine_max_hz)
    : beta_(std::clamp(beta, 0.0, 1.0)), max_hz_(machine_max_hz) {}

bool EmulatedFrequency::usable(std::string& why) {
  if (!(max_hz_ > 0)) {
    why = "no fastest frequency known (no profile and no cpufreq)";
    return false;
  }
  return true;
}

bool EmulatedFrequency::save(const DomainPlan& plan, std::string& why) {
  if (!usable(why)) return false;
  ladder_ = plan.ladder;
  workers_ = plan.max_workers;
  slots_ = std::make_unique<WorkerSlot[]>(workers_ == 0 ? 1 : workers_);
  domains_.reset(plan.cpus_of_domain.size());
  return true;
}

void EmulatedFrequency::domain_level_changed(DomainId domain, Level level, double hz, std::uint64_t) noexcept {
  // An emulated change takes effect at the next segment end: nothing to wait for.
  domains_.apply_at_once(domain, level, hz);
}

bool EmulatedFrequency::segment_end(WorkerId w, std::uint64_t duration_ns, double hz, double) noexcept {
  const std::uint64_t extra = emulated_stretch_ns(duration_ns, hz, max_hz_, beta_);
  if (extra == 0 || w >= workers_) return false;
  burn_busy_ns(extra);
  const Level lv = ladder_.nearest_level(hz);
  auto& counter = slots_[w].added_ns[lv];
  counter.store(counter.load(std::memory_order_relaxed) + extra, std::memory_order_relaxed);
  return true;
}

bool EmulatedFrequency::stretches_at(double hz, double) const noexcept {
  return emulated_stretch_ns(1'000'000'000, hz, max_hz_, beta_) > 0;  // a second's segment
}

double EmulatedFrequency::added_busy_s(WorkerId w, Level level) const noexcept {
  if (w >= workers_ || level < 0 || level >= kMaxLevels) return 0;
  return static_cast<double>(slots_[w].added_ns[level].load(std::memory_order_relaxed)) * 1e-9;
}

}  // namespace rubato
