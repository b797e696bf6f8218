// librubato_tbb_preload.so: rubato for unmodified oneTBB programs,
//   LD_PRELOAD=/path/librubato_tbb_preload.so ./program
// A thread-level observer of the main thread's arena starts when the library
// is loaded and writes the report when it is unloaded (process exit). Only
// arena entry / exit are seen: binding, per-thread time in the arena and idle
// at exit, but no tasks, so the report says steals are not observed.
//
// Limits: the main thread's implicit arena only (explicit task_arenas and
// other threads' arenas are not observed); oneTBB's thread data for the main
// thread is created at load.
#include <cstdio>

#include "arena_observer.hpp"
#include "linked_objects.hpp"
#include "rubato/power/run_identity.hpp"

namespace {

rubato::tbb::detail::ArenaObserver* g_observer = nullptr;

__attribute__((constructor)) void start_preload() {
  using namespace rubato::tbb::detail;
  // LD_PRELOAD reaches every process the program starts (shells, tools):
  // only those using oneTBB are observed.
  if (!another_object_needs("libtbb.so", reinterpret_cast<const void*>(&start_preload))) return;
  try {
    g_observer = new ArenaObserver(rubato::read_process_environment(), EventLevel::threads_only);
  } catch (...) {
    std::fprintf(stderr, "rubato: the TBB preload observer could not start; the program runs without rubato\n");
  }
}

// Library destructors run in reverse load order: before oneTBB's own.
__attribute__((destructor)) void stop_preload() {
  if (!g_observer) return;
  g_observer->finish();
  delete g_observer;
  g_observer = nullptr;
}

}  // namespace
