// The preload's task trace (RUBATO_TRACE, docs/trace-format.md, front-end
// `tbb-preload`): a task record when a task is handed to oneTBB (or, for a
// task whose creation was not seen, when it starts), a segment record per
// stretch of a task on a thread, and wait records around oneTBB's waits inside
// a task. A task's id travels in the task object with its creator
// (itt_frontend.hpp); its code address is the task object's vtable pointer,
// which names its type ("vtable for tbb::detail::d1::function_task<lambda>").
//
// Hot path (only while tracing): each thread writes its own worker's
// TraceWorker and block buffer; a full buffer goes to the shared writer under
// the worker's flush lock (one lock per block, as in the OMPT tool); each
// record also sets its worker's own `recording` flag and reads the trace's
// `closed_`, written once at exit (the hand-over to flush_all). The
// functions are out of line (task_trace.cpp): without a trace the task events
// pay one load of g_trace and a branch.
#pragma once

#include <oneapi/tbb/detail/_task.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "frontend.hpp"
#include "rubato/core/base/clock.hpp"
#include "rubato/core/base/spin_lock.hpp"
#include "rubato/core/config/settings.hpp"
#include "rubato/core/io/trace.hpp"
#include "rubato/tbb/detail/thread_record.hpp"

namespace rubato::tbb::detail {

// What one worker (a thread) has of the trace. Written by its own thread only,
// except at close (see TaskTrace::close).
struct alignas(kCacheLine) TraceWorker {
  std::unique_ptr<TraceBlockBuffer> buffer;  // made at the worker's first record
  std::uint32_t next_seq = 0;                // the worker's task ids: (worker << 32) | seq
  // The segment open on this worker (0: none): its task, how it began, when.
  std::uint64_t open_task = 0;
  SegmentStart open_start = SegmentStart::pop;
  std::uint64_t open_ns = 0;
  // Stored (release) after each of the owner's records, so that the close,
  // on another thread at exit, reads what the owner wrote last.
  std::atomic<std::uint64_t> published{0};
  // Set (seq_cst) while the owner records, and checked against the trace's
  // `closed_` the other way round, so that the close never reads what the
  // owner is writing (TaskTrace::Recording).
  std::atomic<bool> recording{false};
  // A segment is open (open_task != 0), for the close's wait at exit.
  std::atomic<bool> running{false};
  SpinLock flush_lock;
};

class TaskTrace {
 public:
  // Creates the file named by the session's RUBATO_TRACE. nullptr and `error` when it cannot.
  static std::unique_ptr<TaskTrace> open(Session& session, const Environment& env, std::string& error);

  // A task handed to oneTBB by worker `t` (spawn, enqueue, submit,
  // execute_and_wait): its task record; returns its id (never 0).
  std::uint64_t created(ThreadRecord& t, const ::tbb::detail::d1::task& task, bool deferred) noexcept;
  // A task starts on `t` (its creator and id from the task object, id 0 when
  // its creation was not recorded). Suspends the segment open on `t` (its id
  // returned in `resumes`, else 0) and opens the task's. Returns the task's id.
  std::uint64_t started(ThreadRecord& t, const ::tbb::detail::d1::task& task, worker_index creator, std::uint64_t id,
                        bool undeferred, std::uint64_t& resumes) noexcept;
  // Task `id` ended on `t`; `resumes` (if not 0) continues.
  void ended(ThreadRecord& t, std::uint64_t id, std::uint64_t resumes) noexcept;
  // A wait of the task whose segment is open on `t`: returns its id (0: no
  // task of the trace waits, nothing recorded), and at the end resumes it.
  std::uint64_t wait_began(ThreadRecord& t) noexcept;
  void wait_ended(ThreadRecord& t, std::uint64_t waiting) noexcept;

  // At exit, once the front-end is retracted. oneTBB lets a wait return
  // as soon as its last task has released it, inside that task's execute(),
  // before the worker is back in the dispatch loop that reports the task's
  // end: a worker may still be finishing a task while the program exits. So
  // the close first waits (at most kExitGrace) for the segments open on other
  // threads to end, their ends still recorded; then no record is taken any
  // more, the segments still open are closed (unfinished) and every buffer is
  // written. Returns the records the writer could not write.
  std::uint64_t flush_all() noexcept;
  static constexpr std::chrono::milliseconds kExitGrace{100};
  // After the report (its back-end decides the timing): the module table and the end record.
  void close(const std::string& backend) noexcept;

 private:
  // Around each of the owner's records: `ok` false once the trace is closed
  // (nothing may be recorded then). The owner's flag and the close's are
  // both seq_cst: either the owner sees the trace closed, or the close sees
  // the owner recording and waits for it.
  class Recording {
   public:
    Recording(const TaskTrace& trace, TraceWorker& tw) noexcept : tw_(tw) {
      tw_.recording.store(true, std::memory_order_seq_cst);
      ok = !trace.closed_.load(std::memory_order_seq_cst);
    }
    ~Recording() { tw_.recording.store(false, std::memory_order_release); }
    Recording(const Recording&) = delete;
    Recording& operator=(const Recording&) = delete;
    bool ok;

   private:
    TraceWorker& tw_;
  };

  TaskTrace(Engine& engine, std::unique_ptr<TraceFileWriter> writer, std::uint64_t origin_ns);
  std::uint64_t now() const noexcept;
  void record(WorkerId w, TraceWorker& tw, const auto& rec) noexcept;
  void open_segment(TraceWorker& tw, std::uint64_t task, SegmentStart how) noexcept;
  void close_segment(WorkerId w, TraceWorker& tw, SegmentEnd how) noexcept;
  std::uint64_t add_task(WorkerId w, TraceWorker& tw, std::uint64_t parent, WorkerId creator, std::uint32_t flags,
                         const ::tbb::detail::d1::task& task) noexcept;

  Engine& engine_;
  std::unique_ptr<TraceFileWriter> writer_;
  std::unique_ptr<TraceWorker[]> workers_;
  SteadyClock clock_;
  std::uint64_t origin_ns_;
  std::atomic<bool> closed_{false};  // set by flush_all: no record is taken after it
};

// The trace being recorded, or nullptr (set once, before the first task event
// that may use it; never freed: a thread still inside a task at exit may reach it).
inline std::atomic<TaskTrace*> g_trace{nullptr};

}  // namespace rubato::tbb::detail
