// The ITT collector half of the preload's task-level front-end. oneTBB, when
// built with ITT (Debian's libtbb.so.12 is) and pointed at a collector by
// INTEL_LIBITTNOTIFY64, reports every task its dispatch loop runs
// (src/tbb/task_dispatcher.h, local_wait_for_all; itt_notify.h
// ITT_CALLEE_ENTER / ITT_CALLEE_LEAVE):
//
//     __itt_stack_callee_enter(caller); __itt_sync_acquired(task);
//     task->execute(ed)   (or task->cancel(ed) in a cancelled group)
//     __itt_stack_callee_leave(caller);
//
// on the thread that runs it. The loader (tools_api/ittnotify_static.c,
// __itt_init_ittlib) dlopen()s the collector and, for a library exporting
// __itt_api_version, looks up each function of the groups named in
// INTEL_ITTNOTIFY_GROUPS by name: this library exports the three above, so
// every other ITT call of oneTBB stays a null pointer it skips.
//
// Per thread: a stack of the tasks it runs, nested as oneTBB's waits nest
// them. A task's start is the sync_acquired that directly follows a
// callee_enter (sync_acquired also reports mutexes and waits elsewhere in
// oneTBB); its end is the matching callee_leave. Hot path: thread-local state
// and the worker's engine slot only.
#include <dlfcn.h>

#include <oneapi/tbb/profiling.h>

#include <atomic>
#include <cstdlib>
#include <string>

#include "itt_frontend.hpp"

namespace rubato::tbb::detail {
namespace {

// A task that throws leaves oneTBB's dispatch loop without its callee_leave
// (the exception is caught around the loop, task_dispatcher.h). Its frame is
// found later by its stack position: a dispatch loop calls callee_enter for
// each of its tasks from the same place, and a nested loop (a wait inside a
// task) from deeper down the stack. So a frame recorded at or below a new
// callee_enter, or below a callee_leave or the end of a wait, was abandoned;
// it ends there (completed: its body ran and ended). 64 bytes of slack: no
// loop nests inside less.
constexpr std::uintptr_t kSameLoop = 64;

[[gnu::always_inline]] inline void end_frame(IttThread& s) noexcept {
  const std::uint32_t d = s.depth--;
  if (d > kMaxFrames) return;
  IttFrame& f = s.frames[d - 1];
  if (f.generation == kNoGeneration) return;
  if (f.generation == g_itt_generation.load(std::memory_order_relaxed)) [[likely]]
    end_running(t_record, f.task);
  // The trace takes a task's end after the front-end is retracted too, until
  // it closes (TaskTrace::flush_all waits for it at exit).
  if (f.trace_id != 0) [[unlikely]]
    g_trace.load(std::memory_order_relaxed)->ended(t_record, f.trace_id, f.trace_resume);
}

// A hook's own frame address: the caller's stack pointer at the call less the
// return address and the saved frame pointer, whatever the hook's frame size
// (which differs between hooks, and grows with ASan's redzones). Hence the
// builtin in each hook itself, not in a helper function.
#define RUBATO_STACK_HERE() reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0))

// What connect_itt_notifications sends through oneTBB, and whether it came back.
char g_probe;
std::atomic<bool> g_probe_seen{false};

}  // namespace

}  // namespace rubato::tbb::detail

using rubato::tbb::detail::g_probe;
using rubato::tbb::detail::g_probe_seen;

extern "C" {

// Presence marks the collector as "version 1": functions are looked up by name.
__attribute__((visibility("default"))) void __itt_api_version() {}

__attribute__((visibility("default"))) void __itt_stack_callee_enter(void* /*caller*/) {
  using namespace rubato::tbb::detail;
  auto& s = t_itt;
  const std::uintptr_t here = RUBATO_STACK_HERE();
  end_abandoned(s, here + kSameLoop);
  ++s.enters;
  if (s.depth < kMaxFrames) {  // the task's part is set when it starts (sync_acquired)
    IttFrame& f = s.frames[s.depth];
    f.generation = kNoGeneration;
    f.stack = here;
  }
  ++s.depth;
  s.expect_task = true;
}

__attribute__((visibility("default"))) void __itt_sync_acquired(void* object) {
  using namespace rubato::tbb::detail;
  auto& s = t_itt;
  if (!s.expect_task) {  // a lock or a wait, not a task start
    if (object == &g_probe) [[unlikely]]
      g_probe_seen.store(true, std::memory_order_relaxed);
    return;
  }
  s.expect_task = false;
  if (s.depth == 0 || s.depth > kMaxFrames) [[unlikely]] {
    if (s.depth > kMaxFrames)
      if (Frontend* fe = active_frontend()) fe->deep_tasks.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  ThreadRecord* t = itt_record();
  if (!t) [[unlikely]]
    return;
  auto& task = *static_cast<::tbb::detail::d1::task*>(object);
  const TaskMark mark = take_creator(task);
  worker_index creator = mark.creator;
  if (creator == no_worker) [[unlikely]] {
    // Created where no interposed entry point saw it: a task returned by the
    // one before it for this thread to run next (task bypass: it never entered
    // a queue). Counted as created by this thread and popped (and in the notes).
    creator = spawn_in_scope(*t);
    rubato::engine_detail::bump(t->frontend->unseen_creations[creator].n);
  }
  IttFrame& f = s.frames[s.depth - 1];
  begin_running(*t, creator, t->scopes > 0, f.task);
  f.generation = t->generation;
  f.trace_id = 0;
  if (TaskTrace* trace = g_trace.load(std::memory_order_acquire)) [[unlikely]]
    f.trace_id = trace->started(*t, task, mark.creator, mark.trace_id, mark.undeferred, f.trace_resume);
}

__attribute__((visibility("default"))) void __itt_stack_callee_leave(void* /*caller*/) {
  using namespace rubato::tbb::detail;
  auto& s = t_itt;
  s.expect_task = false;
  end_abandoned(s, RUBATO_STACK_HERE() - kSameLoop);
  if (s.depth == 0) [[unlikely]]
    return;
  end_frame(s);
}

}  // extern "C"

namespace rubato::tbb::detail {

void end_frames_below(IttThread& s, std::uintptr_t bound) noexcept {
  do end_frame(s);
  while (s.depth > 0 && s.depth <= kMaxFrames && s.frames[s.depth - 1].stack < bound);
}

namespace {

// Sets a variable for the time of the connection and puts the old value back.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) {
      had_ = true;
      old_ = old;
    }
    setenv(name, value.c_str(), 1);
  }
  ~ScopedVariable() {
    if (had_) setenv(name_, old_.c_str(), 1);
    else unsetenv(name_);
  }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

}  // namespace

bool connect_itt_notifications(std::string& why) noexcept {
  try {
    Dl_info self{};
    if (!dladdr(reinterpret_cast<const void*>(&__itt_stack_callee_enter), &self) || !self.dli_fname) {
      why = "the preload library cannot find its own path (dladdr)";
      return false;
    }
    if (const char* other = std::getenv("INTEL_LIBITTNOTIFY64");
        other && *other && std::string(other) != self.dli_fname) {
      why = std::string("INTEL_LIBITTNOTIFY64 names another ITT collector (") + other +
            "): oneTBB loads one collector, and a profiler's comes first; unset it for rubato's task events";
      return false;
    }
    {
      // oneTBB reads both once, when its tool support first initializes. An
      // ITT notification through its exported call_itt_notify does that, and
      // only that: no scheduler, no arena (creating those here, before the
      // program's own global_control, changed what programs computed).
      ScopedVariable collector("INTEL_LIBITTNOTIFY64", self.dli_fname);
      ScopedVariable groups("INTEL_ITTNOTIFY_GROUPS", "sync,stitch");
      ::tbb::detail::r1::call_itt_notify(/*acquired*/ 2, &g_probe);
    }
    if (!g_probe_seen.load(std::memory_order_relaxed)) {
      why =
          "oneTBB sent no ITT notification to rubato (its tool support was initialized before rubato loaded, "
          "or this oneTBB is built without ITT)";
      return false;
    }
    return true;
  } catch (...) {
    why = "connecting to oneTBB's ITT notifications failed";
    return false;
  }
}

}  // namespace rubato::tbb::detail
