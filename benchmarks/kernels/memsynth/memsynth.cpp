#include "memsynth.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <new>
#include <stdexcept>

#ifdef __linux__
#include <sys/mman.h>
#endif

#include "../common/random.hpp"

namespace kernels::memsynth {

namespace {

// Always 0, but the compiler cannot know: `idx + (x & g_zero)` makes each
// load's address depend on the compute before it, in the hardware too.
volatile std::uint64_t g_zero = 0;
// Where the calibration loop's result goes, so that the loop is kept.
volatile std::uint64_t g_sink = 0;

constexpr std::size_t kHugePage = std::size_t{2} << 20;

// One compute iteration. The empty asm makes x opaque to the optimiser, so
// the loop cannot be re-associated into fewer multiplies (x -> a^2 x + ...):
// every iteration costs one multiply-add latency, as calibrated.
inline std::uint64_t lcg_step(std::uint64_t x) noexcept {
  x = kLcgA * x + kLcgC;
  __asm__ volatile("" : "+r"(x));
  return x;
}

std::uint64_t start_value(const Plan& plan, std::size_t task) { return splitmix64(plan.seed ^ (task + 1)); }

// The affine map of `n` LCG steps: x -> a*x + c.
struct Affine {
  std::uint64_t a = 1, c = 0;
};
Affine lcg_power(std::uint64_t n) {
  Affine r, step{kLcgA, kLcgC};
  for (; n; n >>= 1) {  // square-and-multiply on affine maps
    if (n & 1) r = {step.a * r.a, step.a * r.c + step.c};
    step = {step.a * step.a, step.a * step.c + step.c};
  }
  return r;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

void ChaseBuffer::Free::operator()(Line* p) const noexcept { std::free(p); }

ChaseBuffer::ChaseBuffer(std::size_t bytes, std::uint64_t seed) {
  const std::size_t n = bytes / sizeof(Line);
  if (n < 2 || n > UINT32_MAX) throw std::invalid_argument("memsynth buffer must hold 2 .. 2^32 lines");
  const std::size_t alloc = (n * sizeof(Line) + kHugePage - 1) / kHugePage * kHugePage;
  lines_.reset(static_cast<Line*>(std::aligned_alloc(kHugePage, alloc)));
  if (!lines_) throw std::bad_alloc();
#ifdef __linux__
  // Huge pages keep page walks from adding memory traffic to each miss; a
  // hint only (the walk stays correct without them).
  madvise(lines_.get(), alloc, MADV_HUGEPAGE);
#endif
  order_.resize(n);
  for (std::size_t i = 0; i < n; ++i) order_[i] = static_cast<std::uint32_t>(i);
  const CounterRng rng(seed, Stream::chase);
  for (std::size_t i = n - 1; i > 0; --i) std::swap(order_[i], order_[rng.below(i, i + 1)]);  // Fisher-Yates
  for (std::size_t i = 0; i < n; ++i) lines_[order_[i]].next = order_[(i + 1) % n];
}

TaskResult run_task(const ChaseBuffer& buf, const Plan& plan, std::size_t task) {
  const std::size_t first = task * plan.grain;
  const std::size_t count = std::min(plan.grain, plan.steps - first);
  const Line* lines = buf.data();
  const std::uint64_t zero = g_zero;
  std::uint64_t idx = buf.at(first);
  std::uint64_t x = start_value(plan, task);
  std::uint64_t sum = 0;
  for (std::size_t s = 0; s < count; ++s) {
    idx = lines[idx + (x & zero)].next;
    sum += idx;
    x += idx;
    for (std::uint64_t c = 0; c < plan.compute; ++c) x = lcg_step(x);
  }
  return {sum, x};
}

bool check_task(const ChaseBuffer& buf, const Plan& plan, std::size_t task, const TaskResult& got) {
  const std::size_t first = task * plan.grain;
  const std::size_t count = std::min(plan.grain, plan.steps - first);
  const Affine f = lcg_power(plan.compute);
  std::uint64_t x = start_value(plan, task);
  std::uint64_t sum = 0;
  for (std::size_t s = 1; s <= count; ++s) {
    const std::uint64_t idx = buf.at(first + s);
    sum += idx;
    x = f.a * (x + idx) + f.c;
  }
  return sum == got.index_sum && x == got.x;
}

std::uint64_t Calibration::compute_for(double b) const noexcept {
  if (b >= 1) return 0;
  return static_cast<std::uint64_t>(std::llround(latency_s * (1 - b) / (b * iteration_s)));
}

double Calibration::predicted_utilisation(std::uint64_t compute) const noexcept {
  return latency_s / (latency_s + static_cast<double>(compute) * iteration_s);
}

Calibration calibrate(const ChaseBuffer& buf) {
  Calibration cal;
  // 2^18 misses from the middle of the cycle: away from the lines task 0
  // walks first, so the calibration does not warm the cache for it.
  const std::size_t misses = std::min<std::size_t>(buf.lines() / 2, 1 << 18);
  const std::size_t task = buf.lines() / 2 / misses;
  const Plan chase{(task + 1) * misses, misses, 0, 0};
  auto t0 = std::chrono::steady_clock::now();
  const TaskResult r = run_task(buf, chase, task);
  cal.latency_s = seconds_since(t0) / static_cast<double>(misses);

  constexpr std::uint64_t kIterations = 1 << 24;
  std::uint64_t x = r.x;
  t0 = std::chrono::steady_clock::now();
  for (std::uint64_t c = 0; c < kIterations; ++c) x = lcg_step(x);
  cal.iteration_s = seconds_since(t0) / kIterations;
  g_sink = x;
  return cal;
}

}  // namespace kernels::memsynth
