/* ThreadSanitizer runs of OpenMP programs (tests/RELIABILITY.md,
 * "Sanitizers"). libomp is not built with TSan, so the happens-before edges
 * of its barriers, task queues and locks are invisible and TSan would report
 * races that are none. LLVM's Archer (libarcher.so, shipped with libomp)
 * supplies those edges as an OMPT tool — but libomp starts only one tool, and
 * rubato is one. This shim, preloaded, is the tool libomp finds first in the
 * process: it starts Archer as its own tool and the tool named by
 * OMP_TOOL_LIBRARIES (librubato_ompt.so) as the client, and forwards every
 * callback to both (LLVM's header-only ompt-multiplex.h). Without
 * OMP_TOOL_LIBRARIES it is Archer alone (the reference runs). */
#define CLIENT_TOOL_LIBRARIES_VAR "OMP_TOOL_LIBRARIES"
#include <ompt-multiplex.h>

#ifndef RUBATO_ARCHER_LIBRARY
#define RUBATO_ARCHER_LIBRARY "libarcher.so"
#endif

/* Task data and the multiplexer's order. ompt-multiplex.h calls the own tool
 * (Archer) before the client (rubato) in task_create, so Archer's release for
 * a new task comes before rubato writes the task's data, and the thread that
 * later runs the task acquires only what was released: TSan then reports
 * rubato's write (task_create) and read (task_schedule) as a race although
 * libomp orders them (the task is queued only after the callback returns).
 * The bridge adds the edge Archer would give a single tool: a release on the
 * task's data pair after both tools' task_create and task_schedule, and an
 * acquire before both tools' task_schedule. Each edge the bridge adds is one
 * that libomp really orders, on an address only the bridge uses, so a real
 * race in rubato's own state is still reported. */
typedef void (*bridge_sync_t)(void*);
static bridge_sync_t bridge_acquire, bridge_release; /* TSan's, or NULL outside a TSan process */
static ompt_set_callback_t bridge_runtime_set_callback;
static ompt_start_tool_result_t* bridge_archer;

/* Start and exit, which no OMPT event covers:
 * - libomp starts the tools under its own lock, and an application thread
 *   that enters OpenMP later finds them started: `bridge_started` is released
 *   after the client's initialize and acquired in thread_begin.
 * - At exit rubato's atexit handler (registered in its initialize) reads every
 *   worker's state while the workers wait in libomp, and libomp's shutdown,
 *   which comes after that handler, then wakes them for their last callbacks
 *   (wait end, implicit task end, thread_end). `bridge_waiting` is released
 *   after each wait begin and acquired just before rubato's handler;
 *   `bridge_exited` is released just after it and acquired in those
 *   callbacks. A worker still running a task at exit released nothing since
 *   its last wait, so a real race there is still reported. */
static char bridge_started, bridge_waiting, bridge_exited;
static ompt_start_tool_result_t bridge_client; /* the client's, with bridge_client_initialize */
static ompt_initialize_t bridge_client_real_initialize;

static void bridge_sync(bridge_sync_t fn, void* addr) {
  if (fn && addr) fn(addr);
}

static void bridge_before_client_exit(void) { bridge_sync(bridge_acquire, &bridge_waiting); }
static void bridge_after_client_exit(void) { bridge_sync(bridge_release, &bridge_exited); }

static void bridge_thread_begin(ompt_thread_t type, ompt_data_t* thread_data) {
  bridge_sync(bridge_acquire, &bridge_started);
  ompt_multiplex_callback_thread_begin(type, thread_data);
}

static void bridge_thread_end(ompt_data_t* thread_data) {
  bridge_sync(bridge_acquire, &bridge_exited);
  ompt_multiplex_callback_thread_end(thread_data);
}

static void bridge_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t* parallel_data, ompt_data_t* task_data,
                                 unsigned int team_size, unsigned int thread_num, int flags) {
  if (endpoint == ompt_scope_end) bridge_sync(bridge_acquire, &bridge_exited);
  ompt_multiplex_callback_implicit_task(endpoint, parallel_data, task_data, team_size, thread_num, flags);
}

static void bridge_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t* parallel_data,
                                    ompt_data_t* task_data, const void* codeptr_ra) {
  if (endpoint == ompt_scope_end) bridge_sync(bridge_acquire, &bridge_exited);
  ompt_multiplex_callback_sync_region_wait(kind, endpoint, parallel_data, task_data, codeptr_ra);
  if (endpoint == ompt_scope_begin) bridge_sync(bridge_release, &bridge_waiting);
}

static int bridge_client_initialize(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t* tool_data) {
  int ret = bridge_client_real_initialize(lookup, initial_device_num, tool_data);
  bridge_sync(bridge_release, &bridge_started);
  atexit(bridge_before_client_exit); /* after the client's: runs before it */
  return ret;
}

static void bridge_task_create(ompt_data_t* parent_task_data, const ompt_frame_t* parent_frame,
                               ompt_data_t* new_task_data, int type, int has_dependences, const void* codeptr_ra) {
  ompt_multiplex_callback_task_create(parent_task_data, parent_frame, new_task_data, type, has_dependences, codeptr_ra);
  if (bridge_release && new_task_data && new_task_data->ptr) bridge_release(new_task_data->ptr);
}

static void bridge_task_schedule(ompt_data_t* prior, ompt_task_status_t status, ompt_data_t* next) {
  /* Read before the call: the multiplexer frees a completed task's pair. */
  void* prior_pair = prior ? prior->ptr : NULL;
  void* next_pair = next ? next->ptr : NULL;
  if (bridge_acquire) {
    if (prior_pair) bridge_acquire(prior_pair);
    if (next_pair) bridge_acquire(next_pair);
  }
  ompt_multiplex_callback_task_schedule(prior, status, next);
  if (bridge_release) {
    /* A suspended or re-queued task may resume on another thread. */
    if (prior_pair && status != ompt_task_complete) bridge_release(prior_pair);
    if (next_pair) bridge_release(next_pair);
  }
}

/* Stands in for the runtime's ompt_set_callback once the own tool starts:
 * both tools register through it, and these callbacks get the annotating
 * wrappers instead of the multiplexer's. */
static ompt_set_result_t bridge_set_callback(ompt_callbacks_t which, ompt_callback_t callback) {
#define BRIDGE_WRAP(event, wrapper)                                                                    \
  if (which == ompt_callback_##event && callback == (ompt_callback_t)&ompt_multiplex_callback_##event) \
    callback = (ompt_callback_t)&wrapper;
  BRIDGE_WRAP(task_create, bridge_task_create)
  BRIDGE_WRAP(task_schedule, bridge_task_schedule)
  BRIDGE_WRAP(thread_begin, bridge_thread_begin)
  BRIDGE_WRAP(thread_end, bridge_thread_end)
  BRIDGE_WRAP(implicit_task, bridge_implicit_task)
  BRIDGE_WRAP(sync_region_wait, bridge_sync_region_wait)
#undef BRIDGE_WRAP
  return bridge_runtime_set_callback(which, callback);
}

static int bridge_own_initialize(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t* tool_data) {
  /* ompt_multiplex_initialize has just set ompt_multiplex_set_callback from
   * the runtime's lookup and calls this before the client's initialize. */
  bridge_runtime_set_callback = ompt_multiplex_set_callback;
  ompt_multiplex_set_callback = &bridge_set_callback;
  bridge_acquire = (bridge_sync_t)dlsym(RTLD_DEFAULT, "__tsan_acquire");
  bridge_release = (bridge_sync_t)dlsym(RTLD_DEFAULT, "__tsan_release");
  if (!bridge_acquire || !bridge_release) bridge_acquire = bridge_release = NULL;
  atexit(bridge_after_client_exit); /* before the client's (in its initialize): runs after it */
  return bridge_archer ? bridge_archer->initialize(lookup, initial_device_num, tool_data) : 1;
}

static void bridge_own_finalize(ompt_data_t* tool_data) {
  if (bridge_archer) bridge_archer->finalize(tool_data);
}

/* ompt-multiplex.h renames this to the "own tool" start function. It never
 * returns NULL (the multiplexer would dereference it): without Archer (not
 * installed, or a process without TSan, where Archer declines) the bridge is
 * an empty own tool and the client still runs. */
ompt_start_tool_result_t* ompt_start_tool(unsigned int omp_version, const char* runtime_version) {
  static ompt_start_tool_result_t own = {&bridge_own_initialize, &bridge_own_finalize, {0}};
  /* The client (started just before this) initializes through the bridge. */
  if (ompt_multiplex_client_fns) {
    bridge_client = *ompt_multiplex_client_fns;
    bridge_client_real_initialize = bridge_client.initialize;
    bridge_client.initialize = &bridge_client_initialize;
    ompt_multiplex_client_fns = &bridge_client;
  }
  void* archer = dlopen(RUBATO_ARCHER_LIBRARY, RTLD_LAZY | RTLD_LOCAL);
  if (!archer) {
    fprintf(stderr, "tsan_ompt_bridge: cannot load %s: %s\n", RUBATO_ARCHER_LIBRARY, dlerror());
    return &own;
  }
  ompt_start_tool_result_t* (*start)(unsigned int, const char*) =
      (ompt_start_tool_result_t * (*)(unsigned int, const char*)) dlsym(archer, "ompt_start_tool");
  bridge_archer = start ? start(omp_version, runtime_version) : NULL;
  return &own;
}
