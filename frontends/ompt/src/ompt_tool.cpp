// librubato_ompt.so: the OMPT tool. libomp finds `ompt_start_tool` through
// OMP_TOOL_LIBRARIES; everything else here is hidden.
//
// OMPT callbacks are plain C functions without a user pointer, so the tool's
// state hangs off one process-wide pointer set at start (OMPT itself is one
// per process). It is never freed: libomp may deliver a late thread_end after
// finalize, and the process is exiting anyway.
#include <omp-tools.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "rubato/core/base/clock.hpp"
#include "rubato/core/io/report.hpp"
#include "rubato/core/io/trace.hpp"
#include "rubato/power/os/loaded_modules.hpp"
#include "rubato/power/session/run_identity.hpp"
#include "rubato/power/session/session.hpp"
#include "task_event_mapper.hpp"
#include "worker_parking.hpp"

namespace rubato::ompt {
namespace {

// Entry points the tool needs, looked up once at initialize and checked.
struct EntryPoints {
  ompt_set_callback_t set_callback = nullptr;
  ompt_get_thread_data_t get_thread_data = nullptr;

  // The name of the first missing one, or nullptr.
  const char* load(ompt_function_lookup_t lookup) {
    set_callback = reinterpret_cast<ompt_set_callback_t>(lookup("ompt_set_callback"));
    if (!set_callback) return "ompt_set_callback";
    get_thread_data = reinterpret_cast<ompt_get_thread_data_t>(lookup("ompt_get_thread_data"));
    if (!get_thread_data) return "ompt_get_thread_data";
    return nullptr;
  }
};

struct Tool {
  std::unique_ptr<Session> session;
  SteadyClock clock;
  std::unique_ptr<TraceFileWriter> trace;
  std::unique_ptr<TaskEventMapper> mapper;
  std::unique_ptr<WorkerParking> parking;  // efs's actuator; null unless the policy has efs
  EntryPoints ep;
  std::atomic<bool> finished{false};
};

Tool* g_tool = nullptr;

void say(const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); }

// ---- callbacks: thin wrappers over the mapper ---------------------------------------------

// The calling thread's OMPT thread_data, cached at thread_begin: libomp's
// ompt_get_thread_data costs ~110 instructions (a general-dynamic TLS lookup),
// a callback on every task event can afford one load. Initial-exec TLS in a
// dlopen'ed library takes a few bytes of glibc's static TLS surplus.
__attribute__((tls_model("initial-exec"))) thread_local ompt_data_t* t_thread_data = nullptr;

ompt_data_t* this_thread() {
  ompt_data_t* d = t_thread_data;
  return d ? d : (t_thread_data = g_tool->ep.get_thread_data());
}

void on_thread_begin(ompt_thread_t type, ompt_data_t* thread) {
  t_thread_data = thread;
  g_tool->mapper->thread_begin(type, thread);
}
void on_thread_end(ompt_data_t* thread) {
  g_tool->mapper->thread_end(thread);
  t_thread_data = nullptr;
}

void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t*, ompt_data_t* task, unsigned int, unsigned int index,
                      int flags) {
  g_tool->mapper->implicit_task(this_thread(), endpoint, task, index, flags);
}

// The per-task callbacks end in a tail call of the mapper, whose fast paths
// make no call but in tail position (task_event_mapper_hot.hpp): so a callback
// saves no register on the way in and out (~15 instructions each when it
// did). A thread whose thread_data is not cached yet takes a separate,
// out-of-line way.
[[gnu::noinline]] void task_create_uncached(ompt_data_t* parent, ompt_data_t* task, int flags, int has_dependences) {
  g_tool->mapper->task_create(this_thread(), parent, task, flags, has_dependences != 0);
}

void on_task_create(ompt_data_t* parent, const ompt_frame_t*, ompt_data_t* task, int flags, int has_dependences,
                    const void*) {
  if (ompt_data_t* thread = t_thread_data) [[likely]]
    return g_tool->mapper->task_create(thread, parent, task, flags, has_dependences != 0);
  return task_create_uncached(parent, task, flags, has_dependences);
}

// With RUBATO_TRACE or task types: the task's code address goes into its trace record and names its type.
void on_task_create_traced(ompt_data_t* parent, const ompt_frame_t*, ompt_data_t* task, int flags, int has_dependences,
                           const void* codeptr_ra) {
  g_tool->mapper->task_create_traced(this_thread(), parent, task, flags, has_dependences != 0, codeptr_ra);
}

// ---- efs: parking a deactivated worker ([EFS] §4) ------------------------------------------
//
// A worker the efs controller deactivates parks here, at one kind of task
// scheduling point only: when its thread has just entered a wait (a barrier,
// taskwait or taskgroup: sync_region_wait begin) or has just finished or
// suspended a task and is back in a task that waits (task_schedule returning
// to a waiting frame). Why that cannot deadlock or change results:
//  1. At that point the thread holds no task it has taken but not started
//     (libomp hands a thread its next task only in the next task_schedule
//     switch), and it is not inside any task body: only suspended tasks are on
//     its stack, each waiting for work that other threads can do.
//  2. Everything in its deque stays there to be stolen: libomp's other team
//     threads steal from any thread's deque while they wait or run out of
//     work. A tied task suspended on the parked thread resumes only on it, and
//     a thread in a tied task's taskwait may only take that task's descendants
//     (OpenMP's task scheduling constraint) — so in the worst case the others
//     wait for the parked thread; that wait is bounded by 3.
//  3. Every park is bounded: the thread sleeps until the controller lets it go
//     or the starvation bound runs out (EfsController::wait_bound_s: [EFS]
//     Eq. 23's t_global plus Eq. 24's t_max plus two control intervals),
//     whichever comes first, and the controller is stopped — releasing every
//     parked worker — before the report is written. A request is waited out
//     at most once, so a stale request cannot hold a worker twice.
//  4. The controller never deactivates every live worker (EfsController
//     always admits a first target), so some worker keeps running tasks.
//  5. Parking changes when a task runs, never what it computes: the program's
//     results are unchanged (checked end to end, tests/e2e).
// Cost when not asked to park: one relaxed load of the worker's own slot.
void park_point(ompt_data_t* thread) noexcept {
  WorkerParking* parking = g_tool->parking.get();
  if (!parking || !thread) return;
  auto* ts = static_cast<ThreadState*>(thread->ptr);
  if (!ts || !parking->requested(ts->worker)) [[likely]]
    return;
  const Frame* top = ts->top();
  if (top && top->wait != WaitKind{}) {
    g_tool->mapper->end_run(*ts);  // the park is not busy time
    parking->park(ts->worker);
  }
}

// With parking (efs), after the event.
void on_task_schedule_then_park(ompt_data_t* prior, ompt_task_status_t status, ompt_data_t* next) {
  ompt_data_t* thread = this_thread();
  g_tool->mapper->task_schedule(thread, prior, status, next);
  park_point(thread);
}

void on_sync_region_wait_then_park(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t*,
                                   ompt_data_t* task, const void*) {
  ompt_data_t* thread = this_thread();
  g_tool->mapper->sync_region_wait(thread, kind, endpoint, task);
  if (endpoint == ompt_scope_begin) park_point(thread);
}

// Without parking: tail calls, as on_task_create.
[[gnu::noinline]] void task_schedule_uncached(ompt_data_t* prior, ompt_task_status_t status, ompt_data_t* next) {
  g_tool->mapper->task_schedule(this_thread(), prior, status, next);
}

void on_task_schedule(ompt_data_t* prior, ompt_task_status_t status, ompt_data_t* next) {
  if (ompt_data_t* thread = t_thread_data) [[likely]]
    return g_tool->mapper->task_schedule(thread, prior, status, next);
  return task_schedule_uncached(prior, status, next);
}

[[gnu::noinline]] void sync_region_wait_uncached(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                                 ompt_data_t* task) {
  g_tool->mapper->sync_region_wait(this_thread(), kind, endpoint, task);
}

void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t*, ompt_data_t* task,
                         const void*) {
  if (ompt_data_t* thread = t_thread_data) [[likely]]
    return g_tool->mapper->sync_region_wait(thread, kind, endpoint, task);
  return sync_region_wait_uncached(kind, endpoint, task);
}

struct CallbackEntry {
  ompt_callbacks_t event;
  ompt_callback_t fn;
  const char* name;
};

// Every one is needed: without any of them the event mapping would be wrong.
std::array<CallbackEntry, 6> callbacks(bool parking, bool with_code) {
  const auto schedule = parking ? &on_task_schedule_then_park : &on_task_schedule;
  const auto sync_wait = parking ? &on_sync_region_wait_then_park : &on_sync_region_wait;
  const auto create = with_code ? &on_task_create_traced : &on_task_create;
  return {{
      {ompt_callback_thread_begin, reinterpret_cast<ompt_callback_t>(&on_thread_begin), "thread_begin"},
      {ompt_callback_thread_end, reinterpret_cast<ompt_callback_t>(&on_thread_end), "thread_end"},
      {ompt_callback_implicit_task, reinterpret_cast<ompt_callback_t>(&on_implicit_task), "implicit_task"},
      {ompt_callback_task_create, reinterpret_cast<ompt_callback_t>(create), "task_create"},
      {ompt_callback_task_schedule, reinterpret_cast<ompt_callback_t>(schedule), "task_schedule"},
      {ompt_callback_sync_region_wait, reinterpret_cast<ompt_callback_t>(sync_wait), "sync_region_wait"},
  }};
}

// ---- start and end ----------------------------------------------------------------------------

void finish_tool() noexcept {
  Tool* t = g_tool;
  if (!t || t->finished.exchange(true)) return;
  if (t->mapper) t->mapper->finish();
  if (t->trace && t->trace->records_dropped() > 0)
    t->session->note("trace: " + std::to_string(t->trace->records_dropped()) + " records could not be written");
  const Report& report = t->session->finish();
  if (t->trace) {
    // Only real DVFS runs a segment at its level's frequency (docs/trace-format.md).
    const bool real_dvfs = report.backend == "sysfs" || report.backend == "likwid";
    t->trace->set_timing(real_dvfs ? TraceTiming::at_level : TraceTiming::at_machine_speed);
    t->trace->set_modules(loaded_modules());  // what the tasks' code addresses are resolved against
    std::string error;
    if (!t->trace->close(error)) say("rubato: RUBATO_TRACE: " + error);
  }
}

// At exit(): glibc's on_exit tells the status the program exits with, which
// the report keeps (elsewhere the report leaves it out: never a guessed 0).
void finish_at_exit(int status, void*) noexcept {
  if (Tool* t = g_tool) t->session->exiting_with(status);
  finish_tool();
}

void register_finish_at_exit() {
#ifdef __GLIBC__
  on_exit(&finish_at_exit, nullptr);
#else
  std::atexit([] { finish_tool(); });
#endif
}

// Stepping aside after start: the report says why; the program runs on.
int drop(Tool& t, const std::string& why) {
  say("rubato: dropping the OMPT tool: " + why);
  t.session->note("ompt: dropped: " + why);
  finish_tool();
  return 0;
}

int initialize(ompt_function_lookup_t lookup, int, ompt_data_t*) {
  Tool& t = *g_tool;
  try {
    if (const char* missing = t.ep.load(lookup)) return drop(t, std::string("libomp does not provide ") + missing);
    std::string never;
    for (const CallbackEntry& c : callbacks(t.parking != nullptr, t.mapper->wants_code())) {
      const int result = t.ep.set_callback(c.event, c.fn);
      if (result == ompt_set_never || result == ompt_set_error)
        never += std::string(never.empty() ? "" : ", ") + c.name;
      else if (result != ompt_set_always)
        t.session->note(std::string("ompt: libomp delivers callback ") + c.name + " only sometimes (" +
                        std::to_string(result) + "); figures may be incomplete");
    }
    // Returning 0 makes libomp clear every callback (ompt_post_init), so a
    // partial registration is not left behind.
    if (!never.empty()) return drop(t, "libomp never delivers " + never);
    // The report is written at exit. libomp shuts down (thread ends, then
    // ompt_finalize) from its library destructor, after every handler the tool
    // can register; finalize only finishes first when the runtime ends earlier.
    register_finish_at_exit();
    return 1;
  } catch (const std::exception& e) {
    return drop(t, e.what());
  } catch (...) {
    return drop(t, "unexpected error during initialize");
  }
}

void finalize(ompt_data_t*) { finish_tool(); }

}  // namespace
}  // namespace rubato::ompt

// The one exported symbol (OpenMP 5.x §4.2.1).
extern "C" __attribute__((visibility("default"))) ompt_start_tool_result_t* ompt_start_tool(
    unsigned int /*omp_version*/, const char* runtime_version) {
  using namespace rubato;
  using namespace rubato::ompt;
  static ompt_start_tool_result_t result{&initialize, &finalize, ompt_data_none};
  if (g_tool) return nullptr;  // a second runtime in the process: one tool per process
  try {
    const Environment env = read_process_environment();
    std::string runtime = "libomp";
    if (runtime_version && *runtime_version) runtime += std::string(" (") + runtime_version + ")";
    auto session = Session::open(env, SessionInfo{"ompt", runtime, true});
    if (!session) return nullptr;  // disabled or unusable: the program runs without rubato
    auto tool = std::make_unique<Tool>();
    tool->session = std::move(session);
    const Settings& settings = tool->session->settings();
    Engine& engine = tool->session->engine();
    const std::uint64_t origin = tool->clock.now_ns();
    if (!settings.trace.empty()) {
      const RunIdentity id = current_run_identity(env);
      const std::string path = expand_path_pattern(settings.trace, id.pid, id.host, id.rank);
      TraceHeader header;
      header.origin_ns = origin;
      header.max_workers = static_cast<std::uint32_t>(engine.max_workers());
      header.level_hz = engine.ladder().frequencies_hz();
      header.frontend = "ompt";
      std::string error;
      tool->trace = TraceFileWriter::create(path, header, error);
      if (!tool->trace) {
        say("rubato: RUBATO_TRACE: " + error + "; no trace is recorded");
        tool->session->note("trace: " + error);
      }
    }
    MapperOptions options;
    options.dynamic_binding = settings.binding == "dynamic";
    options.log_workers = settings.log == "debug";
    tool->mapper = std::make_unique<TaskEventMapper>(*tool->session, tool->trace.get(), tool->clock, origin, options);
    if (settings.policy.efs) tool->parking = std::make_unique<WorkerParking>(engine.max_workers(), tool->clock);
    tool->session->start_controllers(tool->parking.get());
    g_tool = tool.release();
    return &result;
  } catch (const std::exception& e) {
    say(std::string("rubato: cannot start the OMPT tool (") + e.what() + "); the program runs without rubato");
  } catch (...) {
    say("rubato: cannot start the OMPT tool; the program runs without rubato");
  }
  return nullptr;
}
