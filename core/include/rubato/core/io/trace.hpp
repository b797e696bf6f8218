// Task traces (RUBATO_TRACE): what a front-end saw of each task — creation with
// parent and creator, execution segments with worker, duration and the tempo
// level in effect, and taskwait / taskgroup / barrier waits — so that the
// simulator can replay the work at a known frequency, and `rubato trace
// export` can show it in OTF2 and Perfetto viewers, each task named by its
// code (version 2: the code address of each task and the loaded modules). The
// byte layout is specified in docs/trace-format.md (version kTraceVersion; the
// reader also reads version 1).
//
// Writing is built for per-thread buffers: each thread encodes records into
// its own TraceBlockBuffer (no locks, no allocation) and hands full blocks to
// the shared TraceFileWriter, which takes a lock once per block.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "rubato/core/base/types.hpp"

namespace rubato {

inline constexpr std::uint32_t kTraceVersion = 2;
inline constexpr std::uint32_t kTraceOldestVersion = 1;  // the reader reads kTraceOldestVersion..kTraceVersion
inline constexpr std::size_t kTraceHeaderBytes = 128;
inline constexpr std::size_t kTraceBlockHeaderBytes = 16;

// Task flags (TaskRecord::flags).
enum TraceTaskFlag : std::uint32_t {
  kTraceTaskExplicit = 1u << 0,
  kTraceTaskImplicit = 1u << 1,  // a parallel region's implicit task
  kTraceTaskInitial = 1u << 2,   // the program's initial task (serial part, never timed)
  kTraceTaskDeferred = 1u << 3,  // entered a queue (push); otherwise ran at once on its creator
  kTraceTaskUntied = 1u << 4,
  kTraceTaskFinal = 1u << 5,
  kTraceTaskDependences = 1u << 6,
};

// How a segment began.
enum class SegmentStart : std::uint8_t {
  pop = 1,      // first start, on the creating worker, from its queue
  steal = 2,    // first start on another worker (victim = the task's creator)
  inline_ = 3,  // first start of a task that was never queued (undeferred, implicit)
  resume = 4,   // a later segment (after a child, a wait, a yield, an untied migration)
  launch = 5,   // clang's untied-task launch stub: no user code, re-queues the task
};

// How a segment ended.
enum class SegmentEnd : std::uint8_t {
  completed = 1,   // the task finished (or was cancelled / detached)
  suspended = 2,   // another task ran on this worker on top of it
  requeued = 3,    // an untied task part ended; the task continues later, maybe elsewhere
  waiting = 4,     // the task entered a wait (a wait record follows)
  region_end = 5,  // an implicit task ended
  unfinished = 6,  // still open when the trace was closed
};

enum class WaitKind : std::uint8_t { taskwait = 1, taskgroup = 2, barrier = 3, other = 4 };

struct TaskRecord {
  std::uint64_t id = 0;
  std::uint64_t parent = 0;  // 0: none (implicit and initial tasks)
  WorkerId creator = 0;
  std::uint32_t flags = 0;
  std::uint64_t time_ns = 0;  // since the trace origin
  // Where the task was created: a return address into the code that made it
  // (OMPT's codeptr_ra of task_create), resolved to a name only at export. 0: unknown (and every v1 task).
  std::uint64_t code = 0;
};

struct SegmentRecord {
  std::uint64_t task = 0;
  WorkerId worker = 0;
  SegmentStart start = SegmentStart::inline_;
  SegmentEnd end = SegmentEnd::completed;
  std::uint8_t level = 0;  // tempo level in effect when the segment ended
  std::uint64_t start_ns = 0;
  std::uint64_t duration_ns = 0;
};

struct WaitRecord {
  std::uint64_t task = 0;
  WorkerId worker = 0;
  WaitKind kind = WaitKind::other;
  bool begin = true;  // false: the wait ended
  std::uint64_t time_ns = 0;
};

// A module (executable or shared library) loaded when the trace was closed:
// what a code address is resolved against after the process is gone.
struct TraceModule {
  std::uint64_t bias = 0;  // load bias: run-time address = address in the file + bias
  std::uint64_t low = 0;   // run-time address range of its loaded segments [low, high)
  std::uint64_t high = 0;
  std::string build_id;  // GNU build-id bytes, empty where the module has none
  std::string path;      // as the dynamic loader names it (the executable: its absolute path)
};

// What a segment's duration measures. With real DVFS (sysfs, likwid) the
// segment ran at its level's frequency. The emulator burns its extra time after
// the segment ends, and a dry run changes nothing: their durations are at the
// machine's own speed, whatever level was recorded.
enum class TraceTiming : std::uint32_t { at_level = 0, at_machine_speed = 1 };

struct TraceHeader {
  std::uint32_t version = kTraceVersion;
  std::uint64_t origin_ns = 0;  // clock value that record times are relative to
  std::uint32_t max_workers = 0;
  std::vector<double> level_hz;                        // tempo level -> frequency (Hz), fastest first, 1..kMaxLevels
  std::string frontend;                                // "ompt", ... (at most 15 bytes kept)
  TraceTiming timing = TraceTiming::at_machine_speed;  // settable until close (set_timing)
};

// Encodes records into one fixed-capacity block; the owner flushes it when
// room() is false. No allocation after construction.
class TraceBlockBuffer {
 public:
  static constexpr std::size_t kMaxRecordBytes = 41;
  explicit TraceBlockBuffer(std::size_t capacity_bytes);

  bool room() const noexcept { return used_ + kMaxRecordBytes <= capacity_; }
  void add(const TaskRecord& r) noexcept;
  void add(const SegmentRecord& r) noexcept;
  void add(const WaitRecord& r) noexcept;

  const std::byte* data() const noexcept { return data_.get(); }
  std::size_t bytes() const noexcept { return used_; }
  std::uint32_t records() const noexcept { return records_; }
  void clear() noexcept { used_ = 0, records_ = 0; }

 private:
  std::unique_ptr<std::byte[]> data_;
  std::size_t capacity_;
  std::size_t used_ = 0;
  std::uint32_t records_ = 0;
};

// The trace file: header, blocks from any thread, trailer. Thread-safe; a
// failed write stops recording (counted as dropped records, reported once).
class TraceFileWriter {
 public:
  static std::unique_ptr<TraceFileWriter> create(const std::string& path, const TraceHeader& header,
                                                 std::string& error);
  ~TraceFileWriter();
  TraceFileWriter(const TraceFileWriter&) = delete;
  TraceFileWriter& operator=(const TraceFileWriter&) = delete;

  // Writes the buffer as one block and clears it.
  void write_block(WorkerId writer, TraceBlockBuffer& buffer) noexcept;
  // Counts records a front-end could not record (e.g. no buffer).
  void count_dropped(std::uint64_t records) noexcept;
  // Rewritten into the header at close (the back-end may be known only late).
  void set_timing(TraceTiming timing) noexcept;
  // Written as the module table at close (before the end record). Not on a hot path.
  void set_modules(std::vector<TraceModule> modules);
  // Writes the trailer and closes; false + `error` if anything failed. Idempotent.
  bool close(std::string& error) noexcept;

  std::uint64_t records_written() const noexcept;
  std::uint64_t records_dropped() const noexcept;
  const std::string& path() const noexcept { return path_; }

 private:
  TraceFileWriter(std::FILE* f, std::string path) : file_(f), path_(std::move(path)) {}
  bool put(const void* data, std::size_t n) noexcept;  // lock held

  mutable std::mutex mutex_;
  std::FILE* file_;
  std::string path_;
  std::string error_;
  std::uint64_t written_ = 0;
  std::uint64_t dropped_ = 0;
  TraceTiming timing_ = TraceTiming::at_machine_speed;
  std::vector<TraceModule> modules_;
};

// ---- reading -------------------------------------------------------------------

struct TraceSegment {
  WorkerId worker = 0;
  SegmentStart start = SegmentStart::inline_;
  SegmentEnd end = SegmentEnd::completed;
  std::uint8_t level = 0;
  std::uint64_t start_ns = 0;
  std::uint64_t duration_ns = 0;
};

struct TraceWait {
  WorkerId worker = 0;
  WaitKind kind = WaitKind::other;
  std::uint64_t begin_ns = 0;
  std::uint64_t end_ns = 0;
};

struct TraceTask {
  std::uint64_t id = 0;
  std::uint64_t parent = 0;
  WorkerId creator = 0;
  std::uint32_t flags = 0;
  std::uint64_t created_ns = 0;
  std::uint64_t code = 0;               // TaskRecord::code
  std::vector<std::uint64_t> children;  // in creation order
  std::vector<TraceSegment> segments;   // in start order
  std::vector<TraceWait> waits;         // in begin order
};

struct Trace {
  TraceHeader header;
  std::vector<TraceTask> tasks;  // in creation order
  std::uint64_t records = 0;
  std::uint64_t dropped = 0;         // records the writer could not record (from the trailer)
  std::vector<TraceModule> modules;  // version 2, when the writer listed them

  const TraceTask* find(std::uint64_t id) const;
  std::unordered_map<std::uint64_t, std::size_t> index;  // id -> position in tasks
};

// Parses and validates a whole trace. On failure: nullopt and `error` names
// the byte offset ("offset 160: unknown record type 9").
std::optional<Trace> parse_trace(std::span<const std::byte> data, std::string& error);
std::optional<Trace> read_trace(const std::string& path, std::string& error);

}  // namespace rubato
