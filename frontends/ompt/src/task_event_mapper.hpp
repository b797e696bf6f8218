// Turns libomp's OMPT callbacks into the engine's events (docs/design.md
// "The engine"): push / pop / steal / idle, task segments, worker begin / end, and
// optionally trace records. Independent of how callbacks are registered, so
// tests drive it with hand-written callback sequences.
//
// Every method is noexcept and runs on the thread the callback came from;
// `thread` is that thread's OMPT thread_data.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include <omp-tools.h>

#include "rubato/core/base/clock.hpp"
#include "rubato/core/tempo/engine.hpp"
#include "rubato/core/io/trace.hpp"
#include "rubato/power/session/session.hpp"
#include "task_mark.hpp"
#include "thread_state.hpp"
#include "worker_registry.hpp"

namespace rubato::ompt {

struct MapperOptions {
  bool dynamic_binding = false;  // Session::before_task / after_task around each segment
  bool log_workers = false;      // one stderr line per worker: index and OS thread id
  std::size_t trace_block_bytes = 64 * 1024;
};

class TaskEventMapper {
 public:
  // `trace` may be null (no RUBATO_TRACE); `clock` times trace records.
  TaskEventMapper(Session& session, TraceFileWriter* trace, const Clock& clock, std::uint64_t trace_origin_ns,
                  MapperOptions options);
  TaskEventMapper(const TaskEventMapper&) = delete;
  TaskEventMapper& operator=(const TaskEventMapper&) = delete;

  void thread_begin(ompt_thread_t type, ompt_data_t* thread) noexcept;
  void thread_end(ompt_data_t* thread) noexcept;
  void implicit_task(ompt_data_t* thread, ompt_scope_endpoint_t endpoint, ompt_data_t* task, unsigned int index,
                     int flags) noexcept;
  void task_create(ompt_data_t* thread, ompt_data_t* parent, ompt_data_t* task, int flags,
                   bool has_dependences = false) noexcept;
  // task_create when tracing or typing: `code` (OMPT's codeptr_ra) goes into
  // the task's trace record and names its type. The tool registers it
  // instead of task_create when RUBATO_TRACE is set or the engine records
  // task types, so that the plain callback keeps its arguments in registers.
  [[gnu::noinline]] void task_create_traced(ompt_data_t* thread, ompt_data_t* parent, ompt_data_t* task, int flags,
                                            bool has_dependences, const void* code) noexcept;
  void task_schedule(ompt_data_t* thread, ompt_data_t* prior, ompt_task_status_t status, ompt_data_t* next) noexcept;
  void sync_region_wait(ompt_data_t* thread, ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                        ompt_data_t* task) noexcept;

  // Flushes every trace buffer and adds the front-end's notes to the session.
  // Called once, at finalize (or exit), when no task runs.
  void finish() noexcept;

  std::uint64_t inconsistencies() const noexcept { return inconsistencies_.load(std::memory_order_relaxed); }

  // The thread may wait from here on (the tool parks it): its busy run ends
  // (Engine::run_end). The mapper calls it itself wherever a thread may wait.
  void end_run(ThreadState& ts) noexcept;

 private:
  ThreadState* state(ompt_data_t* thread, WorkerId preferred) noexcept;
  [[gnu::cold, gnu::noinline]] ThreadState* claim(ompt_data_t* thread, WorkerId preferred) noexcept;

  // Inlined into every event (one engine event each; no clock read but the trace's).
  [[gnu::always_inline]] inline void open_segment(ThreadState& ts, std::uint64_t task, SegmentStart how) noexcept;
  [[gnu::always_inline]] inline void close_segment(ThreadState& ts, SegmentEnd how, bool completed) noexcept;
  void record_segment(ThreadState& ts, SegmentEnd how) noexcept;
  void push_frame(ThreadState& ts, TaskMark task) noexcept;
  [[gnu::cold, gnu::noinline]] static bool grow_frames(ThreadState& ts) noexcept;
  void end_silent_parts(ThreadState& ts, std::uint64_t named) noexcept;
  static bool on_stack(ThreadState& ts, std::uint64_t task) noexcept;
  void untied_self_switch(ThreadState& ts, TaskMark task) noexcept;
  std::uint64_t next_seq(ThreadState& ts) noexcept;
  [[gnu::noinline]] std::uint32_t task_type_of(ThreadState& ts, const void* code) noexcept;
  static bool all_children_ran_here(const ThreadState& ts, const Frame& task) noexcept;
  SegmentStart first_start(ThreadState& ts, ompt_data_t* task, TaskMark mark) noexcept;
  static std::uint64_t created_kind(int flags) noexcept;
  // The per-task fast paths (task_event_mapper_hot.hpp): one function per
  // case, entered by a jump from the callbacks' entry points.
  ThreadState* fast_state(ompt_data_t* thread) const noexcept;
  void chain_segment(ThreadState& ts, std::uint64_t task) noexcept;
  template <bool suspends>
  void fast_start(ThreadState& ts, ompt_data_t* prior, ompt_data_t* next) noexcept;
  void fast_complete(ThreadState& ts, ompt_data_t* prior, ompt_data_t* next) noexcept;
  void fast_taskwait_begin(ThreadState& ts, ompt_data_t* task) noexcept;
  void fast_taskwait_end(ThreadState& ts, ompt_data_t* task) noexcept;
  // The general paths: *_slow from the entry points (the thread's state not
  // looked up yet), *_general from a fast path that found its case is not.
  [[gnu::noinline]] void task_create_general(ompt_data_t* thread, ompt_data_t* parent, ompt_data_t* task, int flags,
                                             bool has_dependences) noexcept;
  [[gnu::noinline]] void task_schedule_slow(ompt_data_t* thread, ompt_data_t* prior, ompt_task_status_t status,
                                            ompt_data_t* next) noexcept;
  [[gnu::noinline]] void task_schedule_general(ThreadState& ts, ompt_data_t* prior, ompt_task_status_t status,
                                               ompt_data_t* next) noexcept;
  // task_schedule_general's parts: a thread beyond max_workers; the prior
  // task's segment ends (true: the task left this thread); the next one starts.
  void unattributed_start(ompt_data_t* next) noexcept;
  bool end_prior(ThreadState& ts, ompt_data_t* prior, TaskMark pm, TaskMark nm, ompt_task_status_t status) noexcept;
  void start_next(ThreadState& ts, ompt_data_t* next, TaskMark nm, bool prior_left) noexcept;
  [[gnu::noinline]] void sync_region_wait_slow(ompt_data_t* thread, ompt_sync_region_t kind,
                                               ompt_scope_endpoint_t endpoint, ompt_data_t* task) noexcept;
  [[gnu::noinline]] void sync_region_wait_general(ThreadState& ts, ompt_sync_region_t kind,
                                                  ompt_scope_endpoint_t endpoint, ompt_data_t* task) noexcept;
  void record_create(ThreadState& ts, ompt_data_t* parent, TaskMark mark, int flags, bool deferred,
                     bool has_dependences, const void* code) noexcept;
  bool keeps_working(const ThreadState& ts, const Frame& waiting, WaitKind wait) const noexcept;
  void maybe_idle(ThreadState& ts, const Frame& waiting) noexcept;
  void resume_top(ThreadState& ts) noexcept;
  // Rare paths, kept out of line so that the per-task paths stay small.
  [[gnu::cold, gnu::noinline]] void inconsistent(const ThreadState& ts, const char* where) noexcept;
  [[gnu::cold, gnu::noinline]] void frames_overflowed() noexcept;

  bool tracing() const noexcept { return trace_ != nullptr; }

 public:
  // Whether task_create needs its code address (the tool registers the traced callback).
  bool wants_code() const noexcept { return tracing() || typed_; }

 private:
  std::uint64_t trace_now() const noexcept { return clock_.now_ns() - trace_origin_ns_; }
  void record(ThreadState& ts, const auto& rec) noexcept;
  void flush(ThreadState& ts) noexcept;

  Session& session_;
  Engine& engine_;
  TraceFileWriter* trace_;
  const Clock& clock_;
  std::uint64_t trace_origin_ns_;
  MapperOptions options_;
  bool typed_;  // the engine records task types (min-energy's closed loop): each task's from its code
  bool plain_;  // no trace, no per-task binding and no types: the inline fast paths apply
  WorkerRegistry registry_;
  std::vector<std::unique_ptr<ThreadState>> states_;  // by worker index, created at first claim
  ThreadState unobserved_;                            // shared by threads beyond max_workers
  std::atomic<std::uint64_t> unobserved_seq_{1};      // task sequence numbers of unobserved threads
  std::atomic<std::uint64_t> inconsistencies_{0};
  std::atomic<bool> frames_overflowed_{false};
};

}  // namespace rubato::ompt

#include "task_event_mapper_hot.hpp"
