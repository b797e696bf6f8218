// The preload's task-level front-end (EventLevel::itt_tasks), shared by the
// ITT collector (itt_collector.cpp: a task starts / ends on the thread that
// runs it) and the interposed oneTBB entry points (spawn_interposers.cpp: a
// task is created, a thread waits). Same engine events as the drop-ins
// (rubato/tbb/detail/task_events.hpp), with two differences: a worker is a
// thread (frontend.hpp), and the spawner travels in the task object itself.
#pragma once

#include <oneapi/tbb/detail/_task.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "frontend.hpp"
#include "rubato/tbb/detail/task_events.hpp"
#include "task_trace.hpp"
#include "thread_lookup.hpp"

namespace rubato::tbb::detail {

// The preload opens its session when the program first hands oneTBB a task or
// waits (preload.cpp): by then the program has set up oneTBB its own way
// (global_control, its arenas), which opening it at load would pre-empt.
inline std::atomic<bool> g_preload_pending{false};
void start_preload_session() noexcept;

// The calling thread's record when the ITT front-end is active and the thread
// has a worker number, else nullptr. Common path: two compares.
[[gnu::always_inline]] inline ThreadRecord* itt_record() noexcept {
  ThreadRecord& t = t_record;
  if (t.generation == g_itt_generation.load(std::memory_order_relaxed) && t.worker != kNoWorker) [[likely]]
    return &t;
  Frontend* fe = active_frontend();
  if (!fe && g_preload_pending.load(std::memory_order_acquire)) [[unlikely]] {
    start_preload_session();
    fe = active_frontend();
  }
  if (!fe || fe->level != EventLevel::itt_tasks) return nullptr;
  ThreadRecord& r = record_for(*fe);
  return worker_of(*fe, r) == kNoWorker ? nullptr : &r;
}

// The creator of a task, written into the task when it is handed to oneTBB and
// taken back when it starts, with its trace id when a trace is recorded.
// d1::task (oneTBB 2021, _task.h) is 64 bytes: vtable pointer,
// m_version_and_traits, m_reserved[6]; the runtime uses m_reserved[0]
// (context) and [2] (isolation) only (src/tbb/scheduler_common.h,
// task_accessor, read in oneTBB 2021.2 to 2022.0). rubato uses m_reserved[5].
// A task's constructor zeroes it, so a task object reused at the same address
// after an earlier one ended carries no stale creator: matching is exact under
// reuse. (2021.1's task had m_reserved[5]: offset 56 was tail padding a derived
// task may use; programs built against 2021.1 headers must not use this mode,
// frontends/tbb/README.md.)
//
// The word: bits 63..48 the mark, bit 47 undeferred (execute_and_wait: the
// caller runs it at once), bits 46..32 the creator (RUBATO_MAX_WORKERS is at
// most 4096), bits 31..0 the creator's sequence number of the task in the
// trace (0: not traced). Bits 46..0 are the trace id (task_trace.hpp).
static_assert(sizeof(::tbb::detail::d1::task) == 64, "oneTBB's d1::task layout changed: see itt_frontend.hpp");
inline constexpr std::size_t kCreatorOffset = 56;               // m_reserved[5]
inline constexpr std::uint64_t kCreatorMark = 0x5242ull << 48;  // "RB"
inline constexpr std::uint64_t kMarkMask = 0xffffull << 48;
inline constexpr std::uint64_t kUndeferredBit = 1ull << 47;
inline constexpr std::uint64_t kTraceIdMask = kUndeferredBit - 1;  // creator and sequence
inline constexpr std::uint64_t kSequenceMask = 0xffffffffull;

[[gnu::always_inline]] inline void write_creator(::tbb::detail::d1::task& task, worker_index w, std::uint64_t trace_id,
                                                 bool deferred) noexcept {
  const std::uint64_t word = kCreatorMark | (deferred ? 0 : kUndeferredBit) | (static_cast<std::uint64_t>(w) << 32) |
                             (trace_id & kSequenceMask);
  std::memcpy(reinterpret_cast<char*>(&task) + kCreatorOffset, &word, sizeof word);
}

// What a task carries from its creation to its start.
struct TaskMark {
  worker_index creator = no_worker;  // no_worker: its creation was not seen
  std::uint64_t trace_id = 0;        // 0: not recorded in the trace
  bool undeferred = false;
};

// The task's mark, cleared in the task.
[[gnu::always_inline]] inline TaskMark take_creator(::tbb::detail::d1::task& task) noexcept {
  char* where = reinterpret_cast<char*>(&task) + kCreatorOffset;
  std::uint64_t word;
  std::memcpy(&word, where, sizeof word);
  if ((word & kMarkMask) != kCreatorMark) return {};
  const std::uint64_t zero = 0;
  std::memcpy(where, &zero, sizeof zero);
  return {static_cast<worker_index>((word & kTraceIdMask) >> 32), (word & kSequenceMask) ? word & kTraceIdMask : 0,
          (word & kUndeferredBit) != 0};
}

// A task is handed to oneTBB by the calling thread (spawn, enqueue, submit, or
// the first task of execute_and_wait, which the caller runs at once: not
// deferred): a push on its worker, and its task record when tracing.
[[gnu::always_inline]] inline void note_created(::tbb::detail::d1::task& task, bool deferred = true) noexcept {
  if (ThreadRecord* t = itt_record()) [[likely]] {
    const worker_index w = spawn_in_scope(*t);
    std::uint64_t trace_id = 0;
    if (TaskTrace* trace = g_trace.load(std::memory_order_acquire)) [[unlikely]]
      trace_id = trace->created(*t, task, deferred);
    write_creator(task, w, trace_id, deferred);
  }
}

// The ITT collector's per-thread stack of the tasks a thread runs
// (itt_collector.cpp), here so that a wait's check for abandoned ones inlines.
// Deeper nesting is not observed (counted): 256 frames are 12 KiB of TLS per thread.
inline constexpr std::uint32_t kMaxFrames = 256;

struct IttFrame {
  std::uint64_t generation;  // of the front-end the task was begun under; kNoGeneration: none
  std::uintptr_t stack;      // where oneTBB's dispatch loop called callee_enter
  running_task task;
  std::uint64_t trace_id;      // the task's id in the trace, 0: not traced
  std::uint64_t trace_resume;  // the trace's segment it suspended (0: none), resumed at its end
};

struct IttThread {
  std::uint32_t depth = 0;   // callee_enter minus callee_leave
  bool expect_task = false;  // a callee_enter was the last ITT call
  std::uint64_t enters = 0;
  IttFrame frames[kMaxFrames];
};

inline constinit thread_local IttThread t_itt{};

// Ends the recorded frames deeper on the stack than `bound` (at least one).
[[gnu::noinline]] void end_frames_below(IttThread& s, std::uintptr_t bound) noexcept;

// Ends the tasks that started deeper on this thread's stack than `bound` and
// left by an exception (itt_collector.cpp): the check inline, the rare work
// out of line.
[[gnu::always_inline]] inline void end_abandoned(IttThread& s, std::uintptr_t bound) noexcept {
  if (s.depth > 0 && s.depth <= kMaxFrames && s.frames[s.depth - 1].stack < bound) [[unlikely]]
    end_frames_below(s, bound);
}

// Around a blocking wait (r1::wait, r1::execute_and_wait): as wait_scope.
class itt_wait_scope {
 public:
  // always_inline: the interposers are the only callers, and a call here
  // costs as much as the events themselves.
  [[gnu::always_inline]] itt_wait_scope() noexcept {
    if ((t_ = itt_record())) {
      begin_waiting(*t_, waiting_);
      generation_ = t_->generation;
      if (TaskTrace* trace = g_trace.load(std::memory_order_acquire)) [[unlikely]]
        trace_waiting_ = trace->wait_began(*t_);
    }
  }
  [[gnu::always_inline]] ~itt_wait_scope() {
    // Tasks of this wait that threw (itt_collector.cpp). A frame address, not
    // `this`: ASan may keep locals on a fake stack elsewhere in memory. Inlined,
    // it is the interposer's frame: every task of this wait ran deeper.
    end_abandoned(t_itt, reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0)));
    if (t_ && generation_ == g_itt_generation.load(std::memory_order_relaxed)) end_waiting(*t_, waiting_);
    // As a task's end (end_frame): recorded until the trace closes.
    if (trace_waiting_ != 0) [[unlikely]]
      g_trace.load(std::memory_order_relaxed)->wait_ended(*t_, trace_waiting_);
  }
  itt_wait_scope(const itt_wait_scope&) = delete;
  itt_wait_scope& operator=(const itt_wait_scope&) = delete;

 private:
  ThreadRecord* t_;
  std::uint64_t generation_ = kNoGeneration;
  std::uint64_t trace_waiting_ = 0;  // the waiting task's trace id (0: none)
  waiting_task waiting_;
};

// Called by the preload when it loads, before oneTBB initializes
// (itt_collector.cpp): points oneTBB's ITT loader at this library for the sync
// and stitch groups, has oneTBB initialize its tool support alone, checks that
// a notification arrives, and puts the environment back. Returns true when it
// does; else `why` says why not.
bool connect_itt_notifications(std::string& why) noexcept;

}  // namespace rubato::tbb::detail
