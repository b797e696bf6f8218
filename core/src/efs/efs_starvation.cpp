#include "rubato/core/efs/efs_starvation.hpp"

#include <algorithm>

namespace rubato::efs {

double period_s(int threads, const StarvationParams& p) noexcept {
  return threads < p.latency_threads ? p.latency_s : p.granularity_s * threads;
}

double local_threshold_s(int core_threads, const StarvationParams& p) noexcept {
  return p.cl * period_s(core_threads, p);
}

double global_threshold_s(int chip_threads, const StarvationParams& p) noexcept {
  return p.cg * period_s(chip_threads, p);
}

double max_wait_s(int chip_threads, const StarvationParams& p) noexcept {
  return chip_threads * period_s(chip_threads, p);
}

namespace {

struct CoreView {
  int threads = 0;            // nc
  double max_vruntime_s = 0;  // over every thread on the core, running or not
  double min_waiting_vruntime_s = 0;
  bool any_waiting = false;
};

CoreView view_of_core(std::span<const RunnableThread> threads, int core) {
  CoreView v;
  for (const RunnableThread& t : threads) {
    if (t.core != core) continue;
    v.max_vruntime_s = v.threads == 0 ? t.vruntime_s : std::max(v.max_vruntime_s, t.vruntime_s);
    ++v.threads;
    if (t.running) continue;
    v.min_waiting_vruntime_s = v.any_waiting ? std::min(v.min_waiting_vruntime_s, t.vruntime_s) : t.vruntime_s;
    v.any_waiting = true;
  }
  return v;
}

}  // namespace

StarvationVerdict starvation_of(std::span<const RunnableThread> threads, std::size_t index, double now_s,
                                const StarvationParams& p) {
  StarvationVerdict v;
  if (index >= threads.size() || threads[index].running) return v;
  const RunnableThread& t = threads[index];
  const CoreView core = view_of_core(threads, t.core);
  v.candidate = t.vruntime_s <= core.min_waiting_vruntime_s;
  v.local = core.max_vruntime_s - t.vruntime_s > local_threshold_s(core.threads, p);
  v.global = now_s - t.last_ran_s > global_threshold_s(static_cast<int>(threads.size()), p);
  return v;
}

std::vector<std::size_t> starved_threads(std::span<const RunnableThread> threads, double now_s,
                                         const StarvationParams& p) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < threads.size(); ++i)
    if (starvation_of(threads, i, now_s, p).starved()) out.push_back(i);
  return out;
}

std::optional<std::size_t> longest_starved(std::span<const RunnableThread> threads, double now_s,
                                           const StarvationParams& p) {
  std::optional<std::size_t> best;
  for (std::size_t i : starved_threads(threads, now_s, p))
    if (!best || threads[i].last_ran_s < threads[*best].last_ran_s) best = i;
  return best;
}

double starved_timeslice_s(std::span<const RunnableThread> threads, std::size_t index, const StarvationParams& p) {
  if (index >= threads.size()) return 0;
  const CoreView core = view_of_core(threads, threads[index].core);
  return std::min(period_s(core.threads, p), core.max_vruntime_s - threads[index].vruntime_s);
}

}  // namespace rubato::efs
