// What the tool keeps per task: one 64-bit word in the task's OMPT task_data,
// written only by the thread that runs the task at the time (creator at
// creation, then whoever schedules it) — so no atomics are needed.
//
//   bits  0..12  creating worker + 1 (0: unknown — created by an unobserved thread)
//   bit  13      started: its first real start was counted (pop / steal / inline)
//   bit  14      launched: clang's untied launch stub ran (see task_event_mapper.cpp)
//   bit  15      deferred: counted as a push on its creator
//   bit  16      explicit
//   bit  17      timed: its execution is accounted as segments
//   bit  18      untied
//   bits 19..26  task type (min-energy's closed loop: the kind of task, from
//                its construct's code address; 0: untyped, and always 0
//                where the engine records no types)
//   bits 27..63  sequence number among the creator's tasks
//
// The id of a task is the word with its flag bits cleared: unique per (creator,
// sequence), carrying its type, and never 0 (tasks of unobserved threads draw their sequence from
// a shared counter). It names the task in the trace.
#pragma once

#include <cstdint>

#include "rubato/core/base/types.hpp"

namespace rubato::ompt {

class TaskMark {
 public:
  static constexpr std::uint64_t kCreatorBits = 13;
  static constexpr std::uint64_t kCreatorMask = (1u << kCreatorBits) - 1;
  static constexpr std::uint64_t kStarted = 1ull << 13;
  static constexpr std::uint64_t kLaunched = 1ull << 14;
  static constexpr std::uint64_t kDeferred = 1ull << 15;
  static constexpr std::uint64_t kExplicit = 1ull << 16;
  static constexpr std::uint64_t kTimed = 1ull << 17;
  static constexpr std::uint64_t kUntied = 1ull << 18;
  static constexpr int kTypeShift = 19;
  static constexpr std::uint64_t kTypeMask = 0xFF;
  static constexpr int kSeqShift = 27;
  static constexpr std::uint64_t kFlagMask = ((1ull << kTypeShift) - 1) & ~kCreatorMask;
  static constexpr std::uint32_t kMaxCreator = kCreatorMask - 1;  // largest worker index a mark holds

  constexpr TaskMark() = default;
  constexpr explicit TaskMark(std::uint64_t word) : word_(word) {}
  // `creator` kNoWorker (or beyond kMaxCreator) records "unknown".
  static constexpr TaskMark make(WorkerId creator, std::uint64_t seq, std::uint64_t flags, std::uint32_t type = 0) {
    const std::uint64_t c = creator <= kMaxCreator ? creator + 1ull : 0;
    return TaskMark((seq << kSeqShift) | ((type & kTypeMask) << kTypeShift) | flags | c);
  }

  constexpr std::uint64_t word() const { return word_; }
  constexpr bool marked() const { return word_ != 0; }
  constexpr WorkerId creator() const {
    const std::uint64_t c = word_ & kCreatorMask;
    return c == 0 ? kNoWorker : static_cast<WorkerId>(c - 1);
  }
  // Created by worker `w` (kNoWorker: never): creator() == w in one compare.
  constexpr bool created_by(WorkerId w) const { return (word_ & kCreatorMask) == w + 1ull; }
  constexpr bool has(std::uint64_t flag) const { return (word_ & flag) != 0; }
  constexpr TaskMark with(std::uint64_t flag) const { return TaskMark(word_ | flag); }
  // Tasks of unobserved threads have no trace record.
  static constexpr bool id_has_creator(std::uint64_t id) { return (id & kCreatorMask) != 0; }
  // One AND: the mapper compares ids several times per task event.
  constexpr std::uint64_t id() const { return word_ & ~kFlagMask; }
  // The task type of a task's mark, or of its id.
  static constexpr std::uint32_t type_of(std::uint64_t word_or_id) {
    return static_cast<std::uint32_t>((word_or_id >> kTypeShift) & kTypeMask);
  }

 private:
  std::uint64_t word_ = 0;
};

static_assert(TaskMark::make(4094, 1, 0).creator() == 4094);
static_assert(TaskMark::make(kNoWorker, 7, TaskMark::kExplicit).creator() == kNoWorker);
static_assert(TaskMark::make(4094, 1, 0).created_by(4094) && !TaskMark::make(4094, 1, 0).created_by(4093));
static_assert(!TaskMark::make(kNoWorker, 7, 0).created_by(kNoWorker));
static_assert(TaskMark::make(3, 5, TaskMark::kStarted | TaskMark::kTimed).id() == ((5ull << TaskMark::kSeqShift) | 4));
static_assert(TaskMark::type_of(TaskMark::make(3, 5, TaskMark::kTimed, 200).id()) == 200);
static_assert(TaskMark::make(3, 5, TaskMark::kTimed, 200).creator() == 3);

}  // namespace rubato::ompt
