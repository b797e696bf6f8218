// A second reference for rubato's overhead: the least an OMPT tool must do per
// task to give rubato's exact counts, and nothing more. It marks each task
// with its creator, counts a push per deferred task, a pop or a steal at each
// task's first start, a completion at each end, and keeps each worker's queue
// depth (pushes - pops - stolen from) and its maximum, in per-thread,
// cache-line-aligned records as rubato does. No time (no segments, no busy
// time), no idle detection, no policy, no report. What it costs over the null
// tool is the floor of any tool that counts steals exactly through OMPT; what
// rubato costs over it is what its time accounting, idle detection and
// policies add (run_overhead.sh prints both).
//   FLOOR_TOOL_SUMMARY=1: totals on stderr at the end (to check the counts).
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "reference_tool.hpp"

namespace {

constexpr std::uint64_t kExplicit = std::uint64_t{1} << 63;
constexpr std::uint64_t kQueued = std::uint64_t{1} << 62;  // deferred: a queue entry
constexpr std::uint64_t kStarted = std::uint64_t{1} << 61;
constexpr std::uint64_t kCreator = 0xffffffffu;

struct alignas(64) Worker {
  std::uint64_t index = 0;
  std::uint64_t pushes = 0, pops = 0, steals = 0, completed = 0, max_depth = 0;
  alignas(64) std::atomic<std::uint64_t> stolen_from{0};  // the only field other threads write
};

constexpr unsigned kMaxWorkers = 1024;
Worker* g_workers[kMaxWorkers];
std::atomic<unsigned> g_worker_count{0};

// The calling thread's record; null outside OpenMP threads (or past kMaxWorkers).
[[gnu::tls_model("initial-exec")]] thread_local Worker* t_worker = nullptr;

struct FloorTool {
  static void thread_begin(ompt_thread_t, ompt_data_t*) {
    const unsigned i = g_worker_count.fetch_add(1);
    if (i >= kMaxWorkers) return;
    auto* w = new Worker;
    w->index = i;
    g_workers[i] = w;
    t_worker = w;
  }

  static void thread_end(ompt_data_t*) {}  // records stay for the summary
  static void implicit_task(ompt_scope_endpoint_t, ompt_data_t*, ompt_data_t*, unsigned int, unsigned int, int) {}
  static void sync_region_wait(ompt_sync_region_t, ompt_scope_endpoint_t, ompt_data_t*, ompt_data_t*, const void*) {}

  static void task_create(ompt_data_t*, const ompt_frame_t*, ompt_data_t* task, int flags, int, const void*) {
    Worker* w = t_worker;
    if (!w || !(flags & ompt_task_explicit)) {
      task->value = 0;
      return;
    }
    if (flags & ompt_task_undeferred) {
      task->value = kExplicit | w->index;
      return;
    }
    task->value = kExplicit | kQueued | w->index;
    const std::uint64_t pushes = ++w->pushes;
    const std::uint64_t depth = pushes - w->pops - w->stolen_from.load(std::memory_order_relaxed);
    if (static_cast<std::int64_t>(depth) > static_cast<std::int64_t>(w->max_depth)) w->max_depth = depth;
  }

  static void task_schedule(ompt_data_t* prior, ompt_task_status_t status, ompt_data_t* next) {
    Worker* w = t_worker;
    if (!w) return;
    if (status == ompt_task_complete && prior && (prior->value & kExplicit)) ++w->completed;
    if (!next || (next->value & (kQueued | kStarted)) != kQueued) return;
    next->value |= kStarted;
    const std::uint64_t creator = next->value & kCreator;
    if (creator == w->index) {
      ++w->pops;
    } else {
      ++w->steals;
      g_workers[creator]->stolen_from.fetch_add(1, std::memory_order_relaxed);
    }
  }
};

int initialize(ompt_function_lookup_t lookup, int, ompt_data_t*) {
  return rubato::bench::register_callbacks<FloorTool>(lookup);
}

void finalize(ompt_data_t*) {
  const char* summary = std::getenv("FLOOR_TOOL_SUMMARY");
  if (!summary || *summary != '1') return;
  std::uint64_t pushes = 0, pops = 0, steals = 0, completed = 0, max_depth = 0;
  const unsigned n = g_worker_count.load() < kMaxWorkers ? g_worker_count.load() : kMaxWorkers;
  for (unsigned i = 0; i < n; ++i) {
    const Worker& w = *g_workers[i];
    pushes += w.pushes, pops += w.pops, steals += w.steals, completed += w.completed;
    if (w.max_depth > max_depth) max_depth = w.max_depth;
  }
  std::fprintf(stderr, "floor tool: %u threads, pushes %llu, pops %llu, steals %llu, completed %llu, max depth %llu\n",
               n, static_cast<unsigned long long>(pushes), static_cast<unsigned long long>(pops),
               static_cast<unsigned long long>(steals), static_cast<unsigned long long>(completed),
               static_cast<unsigned long long>(max_depth));
}

}  // namespace

extern "C" ompt_start_tool_result_t* ompt_start_tool(unsigned int, const char*) {
  static ompt_start_tool_result_t result{&initialize, &finalize, ompt_data_none};
  return &result;
}
