// librubato_tbb_preload.so: rubato for unmodified oneTBB programs,
//   LD_PRELOAD=/path/librubato_tbb_preload.so ./program
// When the library loads it connects to oneTBB's ITT task notifications
// (itt_collector.cpp); it interposes oneTBB's spawn / enqueue / wait entry
// points (spawn_interposers.cpp). The session opens when the program first
// hands oneTBB a task or waits: task events as the drop-ins give them, from
// every arena. Where the notifications cannot be had (a profiler's collector
// in INTEL_LIBITTNOTIFY64, oneTBB initialized before this library), it falls
// back to a thread-level observer of that thread's arena (arena entry / exit,
// time inside the arena) and says why. The report is written when the library
// is unloaded (process exit), with the status the program exits with.
#include <stdlib.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "arena_observer.hpp"
#include "itt_frontend.hpp"
#include "linked_objects.hpp"
#include "task_trace.hpp"
#include "rubato/core/config/settings.hpp"
#include "rubato/power/session/run_identity.hpp"

namespace rubato::tbb::detail {
namespace {

// Read at load; used when the session opens.
struct Pending {
  Environment env;
  bool tasks = false;
  std::string why_threads_only;
};
Pending* g_pending = nullptr;
std::mutex g_start_mutex;
ArenaObserver* g_observer = nullptr;
// exit()'s status, -1 until the program exits (or when it ends otherwise).
std::atomic<int> g_exit_status{-1};

// glibc's on_exit, registered when the session opens, from inside the
// program's run: it runs before the library destructors (ld.so's handler was
// registered before main), so the status is known when the report is written.
void record_exit_status(int status, void*) noexcept { g_exit_status.store(status, std::memory_order_relaxed); }

__attribute__((constructor)) void load_preload() {
  // LD_PRELOAD reaches every process the program starts (shells, tools):
  // only those using oneTBB are observed.
  if (!another_object_needs("libtbb.so", reinterpret_cast<const void*>(&load_preload))) return;
  try {
    auto pending = std::make_unique<Pending>();
    pending->env = read_process_environment();
    Diagnostics unused;                                        // Session::open reports them
    if (!load_settings(pending->env, unused).enabled) return;  // RUBATO_ENABLE=0: oneTBB left untouched
    pending->tasks = connect_itt_notifications(pending->why_threads_only);
    g_pending = pending.release();
    g_preload_pending.store(true, std::memory_order_release);
  } catch (...) {
    std::fprintf(stderr, "rubato: the TBB preload could not start; the program runs without rubato\n");
  }
}

// Library destructors run in reverse load order: before oneTBB's own. The
// observer is finished, not deleted: a thread still inside a task at exit may
// yet reach the front-end (it finds it retracted and does nothing).
__attribute__((destructor)) void unload_preload() {
  std::lock_guard<std::mutex> lock(g_start_mutex);
  g_preload_pending.store(false, std::memory_order_release);
  if (!g_observer) return;
  if (const int status = g_exit_status.load(std::memory_order_relaxed); status >= 0) g_observer->exiting_with(status);
  const Report& report = g_observer->finish();
  if (TaskTrace* trace = g_trace.load(std::memory_order_acquire)) trace->close(report.backend);
}

// With RUBATO_TRACE: the trace, before the session publishes its first task
// event, and its last records written once no event reaches it any more.
void open_trace(const Environment& env) {
  Session* session = g_observer->session();
  if (!session || session->settings().trace.empty()) return;
  std::string error;
  std::unique_ptr<TaskTrace> trace = TaskTrace::open(*session, env, error);
  if (!trace) {
    std::fprintf(stderr, "rubato: RUBATO_TRACE: %s; no trace is recorded\n", error.c_str());
    g_observer->note("trace: " + error);
    return;
  }
  g_trace.store(trace.release(), std::memory_order_release);  // never freed (task_trace.hpp)
  g_observer->before_report([] {
    const std::uint64_t dropped = g_trace.load(std::memory_order_acquire)->flush_all();
    if (dropped > 0) g_observer->note("trace: " + std::to_string(dropped) + " records could not be written");
  });
}

}  // namespace

void start_preload_session() noexcept {
  std::lock_guard<std::mutex> lock(g_start_mutex);
  if (!g_preload_pending.load(std::memory_order_acquire)) return;  // another thread started it
  try {
    const Pending& p = *g_pending;
    g_observer = new ArenaObserver(p.env, p.tasks ? EventLevel::itt_tasks : EventLevel::threads_only);
    if (p.tasks) open_trace(p.env);
#ifdef __GLIBC__
    on_exit(&record_exit_status, nullptr);
#endif
    if (!p.tasks && g_observer->active()) {
      std::fprintf(stderr, "rubato: tbb-preload observes threads only: %s\n", p.why_threads_only.c_str());
      g_observer->note("tbb-preload: no task events: " + p.why_threads_only);
    }
  } catch (...) {
    std::fprintf(stderr, "rubato: the TBB preload observer could not start; the program runs without rubato\n");
  }
  g_preload_pending.store(false, std::memory_order_release);
}

}  // namespace rubato::tbb::detail
