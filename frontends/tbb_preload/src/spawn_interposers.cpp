// The interposed half of the preload's task-level front-end. oneTBB's
// algorithms are templates inlined into the program; they hand tasks to the
// runtime through a few exported functions of libtbb.so.12 (tbb::detail::r1,
// declared in oneapi/tbb/detail/_task.h and task_arena.h), which the program
// calls through its PLT — and so does libtbb itself for its internal spawns
// (objdump: `call spawn@plt`). This preloaded library defines the same
// symbols, so every call lands here first: the calling thread and the task are
// noted (note_created: a push, the creator written into the task), then the
// call goes on to oneTBB's own function, found with dlsym(RTLD_NEXT).
//
// Waits (r1::wait, r1::execute_and_wait) pause the waiting task's segment as
// the drop-ins' wait_scope does. task_arena::execute, isolate and
// task_arena::wait run no task of their own and are not interposed.
#include <dlfcn.h>

#include <oneapi/tbb/task_arena.h>

#include <cstdio>
#include <cstdlib>

#include "itt_frontend.hpp"

namespace {

namespace d1 = ::tbb::detail::d1;

using spawn_fn = void (*)(d1::task&, d1::task_group_context&);
using spawn_at_fn = void (*)(d1::task&, d1::task_group_context&, d1::slot_id);
using submit_fn = void (*)(d1::task&, d1::task_group_context&, ::tbb::detail::r1::arena*, std::uintptr_t);
using enqueue_fn = void (*)(d1::task&, d1::task_arena_base*);
using enqueue_ctx_fn = void (*)(d1::task&, d1::task_group_context&, d1::task_arena_base*);
using execute_and_wait_fn = void (*)(d1::task&, d1::task_group_context&, d1::wait_context&, d1::task_group_context&);
using wait_fn = void (*)(d1::wait_context&, d1::task_group_context&);

struct Next {
  spawn_fn spawn = nullptr;
  spawn_at_fn spawn_at = nullptr;
  submit_fn submit = nullptr;
  enqueue_fn enqueue = nullptr;
  enqueue_ctx_fn enqueue_ctx = nullptr;
  execute_and_wait_fn execute_and_wait = nullptr;
  wait_fn wait = nullptr;
};
Next g_next;

template <typename F>
F next(const char* mangled) {
  void* f = dlsym(RTLD_NEXT, mangled);
  if (!f) {
    // oneTBB's binary interface 12 exports all of them: without one, every
    // call of it would fail, so there is nothing safe to fall back to.
    std::fprintf(
        stderr,
        "rubato: oneTBB's %s is missing (libtbb.so.12 expected); remove librubato_tbb_preload.so from LD_PRELOAD\n",
        mangled);
    std::abort();
  }
  return reinterpret_cast<F>(f);
}

// Before any other constructor of this library (start_preload runs oneTBB).
__attribute__((constructor(101))) void find_next() {
  g_next.spawn = next<spawn_fn>("_ZN3tbb6detail2r15spawnERNS0_2d14taskERNS2_18task_group_contextE");
  g_next.spawn_at = next<spawn_at_fn>("_ZN3tbb6detail2r15spawnERNS0_2d14taskERNS2_18task_group_contextEt");
  g_next.submit = next<submit_fn>("_ZN3tbb6detail2r16submitERNS0_2d14taskERNS2_18task_group_contextEPNS1_5arenaEm");
  g_next.enqueue = next<enqueue_fn>("_ZN3tbb6detail2r17enqueueERNS0_2d14taskEPNS2_15task_arena_baseE");
  g_next.enqueue_ctx =
      next<enqueue_ctx_fn>("_ZN3tbb6detail2r17enqueueERNS0_2d14taskERNS2_18task_group_contextEPNS2_15task_arena_baseE");
  g_next.execute_and_wait = next<execute_and_wait_fn>(
      "_ZN3tbb6detail2r116execute_and_waitERNS0_2d14taskERNS2_18task_group_contextERNS2_12wait_contextES6_");
  g_next.wait = next<wait_fn>("_ZN3tbb6detail2r14waitERNS0_2d112wait_contextERNS2_18task_group_contextE");
}

}  // namespace

namespace tbb::detail::r1 {

using rubato::tbb::detail::itt_wait_scope;
using rubato::tbb::detail::note_created;

#pragma GCC visibility push(default)

void __TBB_EXPORTED_FUNC spawn(d1::task& t, d1::task_group_context& ctx) {
  note_created(t);
  g_next.spawn(t, ctx);
}

// With affinity: oneTBB puts a proxy in this thread's pool and in slot `id`'s
// mailbox; whichever thread takes it runs `t` itself (acquired with t's address).
void __TBB_EXPORTED_FUNC spawn(d1::task& t, d1::task_group_context& ctx, d1::slot_id id) {
  note_created(t);
  g_next.spawn_at(t, ctx, id);
}

// The arena's shared FIFO (enqueue, and submit from outside the target arena)
// is no worker's deque; the task still counts as its creator's (docs/design.md
// "Unmodified oneTBB programs": pushes and steals follow the thread that
// created a task).
void __TBB_EXPORTED_FUNC submit(d1::task& t, d1::task_group_context& ctx, arena* a, std::uintptr_t as_critical) {
  note_created(t);
  g_next.submit(t, ctx, a, as_critical);
}

void __TBB_EXPORTED_FUNC enqueue(d1::task& t, d1::task_arena_base* ta) {
  note_created(t);
  g_next.enqueue(t, ta);
}

void __TBB_EXPORTED_FUNC enqueue(d1::task& t, d1::task_group_context& ctx, d1::task_arena_base* ta) {
  note_created(t);
  g_next.enqueue_ctx(t, ctx, ta);
}

// The caller runs `t` first (a task it created and pops; in the trace, one it
// runs at once: not deferred), then waits.
void __TBB_EXPORTED_FUNC execute_and_wait(d1::task& t, d1::task_group_context& t_ctx, d1::wait_context& wait_ctx,
                                          d1::task_group_context& w_ctx) {
  note_created(t, /*deferred=*/false);
  itt_wait_scope waiting;
  g_next.execute_and_wait(t, t_ctx, wait_ctx, w_ctx);
}

void __TBB_EXPORTED_FUNC wait(d1::wait_context& wait_ctx, d1::task_group_context& ctx) {
  itt_wait_scope waiting;
  g_next.wait(wait_ctx, ctx);
}

#pragma GCC visibility pop

}  // namespace tbb::detail::r1
