#include "frontend.hpp"

#include "rubato/tbb/detail/thread_record.hpp"

namespace rubato::tbb::detail {
namespace {
std::atomic<bool> g_claimed{false};
std::atomic<std::uint64_t> g_generations{0};
}  // namespace

bool claim_frontend() noexcept { return !g_claimed.exchange(true, std::memory_order_acq_rel); }

void release_frontend() noexcept { g_claimed.store(false, std::memory_order_release); }

void publish(Frontend& fe) noexcept {
  fe.generation = g_generations.fetch_add(1, std::memory_order_relaxed) + 1;
  g_active_frontend.store(&fe, std::memory_order_release);
  if (fe.level == EventLevel::tasks) g_task_generation.store(fe.generation, std::memory_order_release);
  if (fe.level == EventLevel::itt_tasks) g_itt_generation.store(fe.generation, std::memory_order_release);
}

void retract(Frontend& fe) noexcept {
  std::uint64_t generation = fe.generation;
  g_task_generation.compare_exchange_strong(generation, 0, std::memory_order_acq_rel);
  generation = fe.generation;
  g_itt_generation.compare_exchange_strong(generation, 0, std::memory_order_acq_rel);
  Frontend* self = &fe;
  g_active_frontend.compare_exchange_strong(self, nullptr, std::memory_order_acq_rel);
}

}  // namespace rubato::tbb::detail
