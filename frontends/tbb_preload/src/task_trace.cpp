#include "task_trace.hpp"

#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

#include "itt_frontend.hpp"
#include "rubato/core/io/report.hpp"
#include "rubato/power/os/loaded_modules.hpp"
#include "rubato/power/session/run_identity.hpp"
#include "rubato/power/session/session.hpp"

namespace rubato::tbb::detail {
namespace {

// As the OMPT tool's: one block per 64 KiB of records.
constexpr std::size_t kBlockBytes = 64 * 1024;

// The task object's vtable pointer: the address its type's name resolves from.
std::uint64_t code_of(const ::tbb::detail::d1::task& task) noexcept {
  std::uint64_t vptr;
  std::memcpy(&vptr, static_cast<const void*>(&task), sizeof vptr);
  return vptr;
}

// The task running on the calling thread, innermost (0: none, or not traced).
std::uint64_t running_task_id() noexcept {
  const IttThread& s = t_itt;
  if (s.depth == 0 || s.depth > kMaxFrames) return 0;
  const IttFrame& f = s.frames[s.depth - 1];
  return f.generation == kNoGeneration ? 0 : f.trace_id;
}

// Makes the owner's writes so far visible to the close (an acquire there).
void publish(TraceWorker& tw) noexcept {
  tw.published.store(tw.published.load(std::memory_order_relaxed) + 1, std::memory_order_release);
}

}  // namespace

std::unique_ptr<TaskTrace> TaskTrace::open(Session& session, const Environment& env, std::string& error) {
  Engine& engine = session.engine();
  const RunIdentity id = current_run_identity(env);
  const std::string path = expand_path_pattern(session.settings().trace, id.pid, id.host, id.rank);
  TraceHeader header;
  const SteadyClock clock;
  header.origin_ns = clock.now();
  header.max_workers = static_cast<std::uint32_t>(engine.max_workers());
  header.level_hz = engine.ladder().frequencies_hz();
  header.frontend = "tbb-preload";
  auto writer = TraceFileWriter::create(path, header, error);
  if (!writer) return nullptr;
  return std::unique_ptr<TaskTrace>(new TaskTrace(engine, std::move(writer), header.origin_ns));
}

TaskTrace::TaskTrace(Engine& engine, std::unique_ptr<TraceFileWriter> writer, std::uint64_t origin_ns)
    : engine_(engine),
      writer_(std::move(writer)),
      workers_(std::make_unique<TraceWorker[]>(engine.max_workers())),
      origin_ns_(origin_ns) {}

std::uint64_t TaskTrace::now() const noexcept {
  const std::uint64_t t = clock_.now();
  return t > origin_ns_ ? t - origin_ns_ : 0;
}

void TaskTrace::record(WorkerId w, TraceWorker& tw, const auto& rec) noexcept {
  if (!tw.buffer) [[unlikely]] {
    // Once per worker, at its first record.
    try {
      tw.buffer = std::make_unique<TraceBlockBuffer>(kBlockBytes);
    } catch (...) {
      writer_->count_dropped(1);
      return;
    }
  }
  if (!tw.buffer->room()) {
    std::lock_guard<SpinLock> guard(tw.flush_lock);
    writer_->write_block(w, *tw.buffer);
  }
  tw.buffer->add(rec);
}

void TaskTrace::open_segment(TraceWorker& tw, std::uint64_t task, SegmentStart how) noexcept {
  tw.open_task = task;
  tw.open_start = how;
  tw.open_ns = now();
  tw.running.store(true, std::memory_order_relaxed);
}

void TaskTrace::close_segment(WorkerId w, TraceWorker& tw, SegmentEnd how) noexcept {
  const std::uint64_t end = now();
  const auto level = static_cast<std::uint8_t>(engine_.domain_level(w));
  record(
      w, tw,
      SegmentRecord{tw.open_task, w, tw.open_start, how, level, tw.open_ns, end > tw.open_ns ? end - tw.open_ns : 0});
  tw.open_task = 0;
  tw.running.store(false, std::memory_order_relaxed);
}

std::uint64_t TaskTrace::add_task(WorkerId w, TraceWorker& tw, std::uint64_t parent, WorkerId creator,
                                  std::uint32_t flags, const ::tbb::detail::d1::task& task) noexcept {
  // 32 bits of sequence per worker: ids repeat after 2^32 tasks of one thread.
  const std::uint64_t id = (static_cast<std::uint64_t>(w) << 32) | ++tw.next_seq;
  record(w, tw, TaskRecord{id, parent, creator, flags, now(), code_of(task)});
  return id;
}

std::uint64_t TaskTrace::created(ThreadRecord& t, const ::tbb::detail::d1::task& task, bool deferred) noexcept {
  TraceWorker& tw = workers_[t.worker];
  const Recording recording(*this, tw);
  if (!recording.ok) return 0;
  const std::uint32_t flags = kTraceTaskExplicit | (deferred ? kTraceTaskDeferred : 0u);
  const std::uint64_t id = add_task(t.worker, tw, running_task_id(), t.worker, flags, task);
  publish(tw);
  return id;
}

std::uint64_t TaskTrace::started(ThreadRecord& t, const ::tbb::detail::d1::task& task, worker_index creator,
                                 std::uint64_t id, bool undeferred, std::uint64_t& resumes) noexcept {
  const WorkerId w = t.worker;
  TraceWorker& tw = workers_[w];
  const Recording recording(*this, tw);
  if (!recording.ok) {
    resumes = 0;
    return 0;
  }
  const bool seen = creator != no_worker;
  if (id == 0) {
    // Created before the trace began, or where no interposed entry point saw it
    // (a task returned by the one before it: never queued, made and run here).
    const std::uint32_t flags = kTraceTaskExplicit | (seen && !undeferred ? kTraceTaskDeferred : 0u);
    id = add_task(w, tw, 0, seen ? creator : w, flags, task);
  }
  resumes = tw.open_task;
  if (resumes != 0) close_segment(w, tw, SegmentEnd::suspended);
  // As the engine counts it (begin_running): a start elsewhere than the creator is a steal.
  SegmentStart how = SegmentStart::pop;
  if (seen && creator != w) how = SegmentStart::steal;
  else if (!seen || undeferred) how = SegmentStart::inline_;
  open_segment(tw, id, how);
  publish(tw);
  return id;
}

void TaskTrace::ended(ThreadRecord& t, std::uint64_t id, std::uint64_t resumes) noexcept {
  const WorkerId w = t.worker;
  TraceWorker& tw = workers_[w];
  const Recording recording(*this, tw);
  if (!recording.ok) return;
  if (tw.open_task == id) {
    close_segment(w, tw, SegmentEnd::completed);
  } else {
    // Its segment was not the open one (it left a wait by an exception that
    // skipped the wait's end): it completes here, with no time of its own.
    const auto level = static_cast<std::uint8_t>(engine_.domain_level(w));
    record(w, tw, SegmentRecord{id, w, SegmentStart::resume, SegmentEnd::completed, level, now(), 0});
  }
  if (resumes != 0) {
    if (tw.open_task != 0) close_segment(w, tw, SegmentEnd::suspended);
    open_segment(tw, resumes, SegmentStart::resume);
  }
  publish(tw);
}

std::uint64_t TaskTrace::wait_began(ThreadRecord& t) noexcept {
  const WorkerId w = t.worker;
  TraceWorker& tw = workers_[w];
  const Recording recording(*this, tw);
  if (!recording.ok) return 0;
  const std::uint64_t task = tw.open_task;
  if (task == 0) return 0;  // the program's serial part: no task of the trace waits
  close_segment(w, tw, SegmentEnd::waiting);
  record(w, tw, WaitRecord{task, w, WaitKind::taskwait, true, now()});
  publish(tw);
  return task;
}

void TaskTrace::wait_ended(ThreadRecord& t, std::uint64_t waiting) noexcept {
  const WorkerId w = t.worker;
  TraceWorker& tw = workers_[w];
  const Recording recording(*this, tw);
  if (!recording.ok) return;
  if (tw.open_task != 0) close_segment(w, tw, SegmentEnd::suspended);
  record(w, tw, WaitRecord{waiting, w, WaitKind::taskwait, false, now()});
  open_segment(tw, waiting, SegmentStart::resume);
  publish(tw);
}

std::uint64_t TaskTrace::flush_all() noexcept {
  const std::size_t workers = engine_.max_workers();
  const auto others_running = [&] {
    for (std::size_t x = 0; x < workers; ++x) {
      // The calling thread's own segment (a task calling exit) cannot end now.
      if (static_cast<WorkerId>(x) == t_record.worker) continue;
      if (workers_[x].running.load(std::memory_order_relaxed)) return true;
    }
    return false;
  };
  const auto grace_end = std::chrono::steady_clock::now() + kExitGrace;
  while (others_running() && std::chrono::steady_clock::now() < grace_end)
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  closed_.store(true, std::memory_order_seq_cst);
  for (std::size_t x = 0; x < workers; ++x) {
    TraceWorker& tw = workers_[x];
    // A record takes well under a microsecond; a thread descheduled in the
    // middle of one is waited for (bounded: exit never hangs on it).
    const auto record_end = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    bool in_record = false;
    while ((in_record = tw.recording.load(std::memory_order_seq_cst)) && std::chrono::steady_clock::now() < record_end)
      std::this_thread::yield();
    if (in_record) {
      writer_->count_dropped(1);  // at least: its buffer is not read while its owner writes
      continue;
    }
    if (tw.published.load(std::memory_order_acquire) == 0) continue;
    const auto w = static_cast<WorkerId>(x);
    if (tw.open_task != 0) close_segment(w, tw, SegmentEnd::unfinished);
    if (!tw.buffer) continue;
    std::lock_guard<SpinLock> guard(tw.flush_lock);
    writer_->write_block(w, *tw.buffer);
  }
  return writer_->records_dropped();
}

void TaskTrace::close(const std::string& backend) noexcept {
  // Only real DVFS runs a segment at its level's frequency (docs/trace-format.md).
  const bool real_dvfs = backend == "sysfs" || backend == "likwid";
  writer_->set_timing(real_dvfs ? TraceTiming::at_level : TraceTiming::at_machine_speed);
  try {
    writer_->set_modules(loaded_modules());  // what the tasks' code addresses are resolved against
  } catch (...) {
    // Out of memory at exit: the tasks stay unnamed.
  }
  std::string error;
  if (!writer_->close(error)) std::fprintf(stderr, "rubato: RUBATO_TRACE: %s\n", error.c_str());
}

}  // namespace rubato::tbb::detail
