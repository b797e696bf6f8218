// Per-thread state of the OMPT front-end, reached through the thread's OMPT
// thread_data. Only its own thread writes it (the trace buffer is also flushed
// once more at finalize, when no task runs). Cache-line aligned so that no two
// threads' states share a line.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include <omp-tools.h>

#include "rubato/core/tempo/engine.hpp"
#include "rubato/core/base/spin_lock.hpp"
#include "rubato/core/io/trace.hpp"
#include "rubato/core/base/types.hpp"

namespace rubato::ompt {

// One task on this thread's stack of tasks: the running one on top, below it
// the tasks it suspended (a task waiting in taskwait runs other tasks on top
// of itself; an implicit task waiting at a barrier likewise).
// Tasks are identified by their mark's id, not by the ompt_data_t address:
// libomp reports some waits with a copy of the task's data (taskgroup end,
// a worker's join barrier).
struct Frame {
  std::uint64_t task = 0;  // TaskMark::id()
  // This thread's `unpopped` when the task started here (its own pop
  // counted): what it and its descendants pushed since and this thread did
  // not pop, unpopped minus this, was started by other workers (see
  // maybe_idle in task_event_mapper.cpp).
  std::int64_t base_unpopped = 0;
  WaitKind wait{};  // 0: not waiting
  bool timed = false;
  // A part of an untied task (docs/ompt.md, "Untied tasks"): it may end
  // without a callback, which the thread's next callback then reveals.
  bool untied = false;
};

// Frames kept in the thread's state itself; the fast paths handle only these.
// Deeper nesting goes through the general path, with frames in `deep`.
inline constexpr std::size_t kMaxFrames = 256;

struct alignas(kCacheLine) ThreadState {
  WorkerId worker = kNoWorker;   // kNoWorker: a thread beyond RUBATO_MAX_WORKERS
  Engine::Slot* slot = nullptr;  // the engine's slot of `worker` (null with kNoWorker)
  std::uint64_t next_seq = 1;    // sequence numbers of the tasks this worker creates
  std::int64_t unpopped = 0;     // tasks this thread pushed and did not pop itself
  // The open segment, if any (one at a time: a suspended task's segment ends
  // before the next one starts).
  std::uint64_t segment_task = 0;                      // TaskMark::id(); 0: no segment open
  SegmentStart segment_start = SegmentStart::inline_;  // only when tracing
  std::uint64_t segment_start_ns = 0;                  // only when tracing
  std::uint32_t depth = 0;                             // tasks on the stack; frames beyond kept_frames() are not kept
  bool live = false;                                   // a thread holds this worker index
  TraceBlockBuffer* trace = nullptr;                   // null when not tracing
  // min-energy's closed loop: task types by code address, this thread's
  // cache of the session's registry (direct-mapped; a miss asks it, once per
  // code and slot). Only where the engine records types.
  struct TypeCacheEntry {
    const void* code = nullptr;
    std::uint32_t type = 0;
  };
  std::array<TypeCacheEntry, 32> type_cache{};

  alignas(kCacheLine) std::array<Frame, kMaxFrames> frames{};
  // Frames kMaxFrames and beyond (recursive codes, tree searches): grown by
  // doubling when a new depth needs it, so a thread allocates at most
  // log2(depth / kMaxFrames) + 1 times in its life, never once per task.
  std::unique_ptr<Frame[]> deep;
  std::uint32_t deep_capacity = 0;
  std::unique_ptr<TraceBlockBuffer> trace_storage;
  SpinLock flush_lock;  // the owner and finalize may both flush

  std::uint32_t kept_frames() const noexcept { return static_cast<std::uint32_t>(kMaxFrames) + deep_capacity; }
  // Frame i from the bottom (i < kept_frames()).
  Frame& frame(std::uint32_t i) noexcept { return i < kMaxFrames ? frames[i] : deep[i - kMaxFrames]; }
  Frame* top() noexcept {
    if (depth > 0 && depth <= kMaxFrames) [[likely]]
      return &frames[depth - 1];
    return depth > 0 && depth <= kept_frames() ? &frame(depth - 1) : nullptr;
  }
  Frame* below_top() noexcept { return depth > 1 && depth - 1 <= kept_frames() ? &frame(depth - 2) : nullptr; }
};

}  // namespace rubato::ompt
