#include "export/export_driver.hpp"

#include <algorithm>
#include <memory>
#include <unordered_map>
#include <vector>

#include "export/symbolizer.hpp"

namespace rubato::cli {

const char* wait_name(WaitKind kind) noexcept {
  switch (kind) {
    case WaitKind::taskwait: return "taskwait";
    case WaitKind::taskgroup: return "taskgroup";
    case WaitKind::barrier: return "barrier";
    default: return "wait";
  }
}

const char* start_name(SegmentStart start) noexcept {
  switch (start) {
    case SegmentStart::pop: return "pop";
    case SegmentStart::steal: return "steal";
    case SegmentStart::inline_: return "inline";
    case SegmentStart::resume: return "resume";
    default: return "launch";
  }
}

const char* end_name(SegmentEnd end) noexcept {
  switch (end) {
    case SegmentEnd::completed: return "completed";
    case SegmentEnd::suspended: return "suspended";
    case SegmentEnd::requeued: return "requeued";
    case SegmentEnd::waiting: return "waiting";
    case SegmentEnd::region_end: return "region end";
    default: return "unfinished";
  }
}

namespace {

struct LiveTask {
  WorkerId creator = 0;
  std::uint32_t name = 0;
  std::uint64_t created_ns = 0;
};

// Names 0..2 are fixed; a code address gets one name per distinct label.
constexpr std::uint32_t kUnknownTask = 0, kImplicitTask = 1, kInitialTask = 2;

class Driver {
 public:
  Driver(TraceStream& stream, const ExportDriverOptions& options, ExportSink& sink, ExportCounts& counts)
      : stream_(stream), options_(options), sink_(sink), counts_(counts) {
    names_ = {{"task", "", "", 0}, {"implicit task", "", "", 0}, {"initial task", "", "", 0}};
    if (options.resolve_names) symbolizer_ = std::make_unique<Symbolizer>(stream.modules());
    last_level_.assign(stream.header().max_workers, -1);
  }
  bool run(std::vector<std::string>& notes, std::string& error);

 private:
  std::uint32_t name_of(const TaskRecord& t);
  void task(const TaskRecord& t);
  void segment(const SegmentRecord& s);

  TraceStream& stream_;
  const ExportDriverOptions& options_;
  ExportSink& sink_;
  ExportCounts& counts_;
  std::unique_ptr<Symbolizer> symbolizer_;
  std::vector<ExportName> names_;
  std::unordered_map<std::string, std::uint32_t> name_index_;
  std::unordered_map<std::uint64_t, std::uint32_t> code_names_;
  std::unordered_map<std::uint64_t, LiveTask> live_;
  std::vector<int> last_level_;
  std::uint64_t last_ns_ = 0;
};

std::uint32_t Driver::name_of(const TaskRecord& t) {
  if (t.flags & kTraceTaskImplicit) return kImplicitTask;
  if (t.flags & kTraceTaskInitial) return kInitialTask;
  if (t.code == 0) return kUnknownTask;
  auto [it, fresh] = code_names_.try_emplace(t.code, kUnknownTask);
  if (!fresh) return it->second;
  CodeLocation where;
  if (symbolizer_) where = symbolizer_->resolve(t.code);
  const std::string label = code_label(where, t.code);
  auto [named, added] = name_index_.try_emplace(label, static_cast<std::uint32_t>(names_.size()));
  if (added) names_.push_back(ExportName{label, where.function, where.file, where.line});
  it->second = named->second;
  return named->second;
}

void Driver::task(const TaskRecord& t) {
  ++counts_.tasks;
  live_[t.id] = LiveTask{t.creator, name_of(t), t.time_ns};
  counts_.most_live_tasks = std::max<std::uint64_t>(counts_.most_live_tasks, live_.size());
  last_ns_ = std::max(last_ns_, t.time_ns);
}

void Driver::segment(const SegmentRecord& s) {
  ++counts_.segments;
  ExportSegment e;
  e.worker = s.worker;
  e.task = s.task;
  e.start_ns = s.start_ns;
  e.end_ns = s.start_ns + s.duration_ns;
  e.start = s.start;
  e.end = s.end;
  e.level = s.level;
  e.level_changed = last_level_[s.worker] != s.level;
  last_level_[s.worker] = s.level;
  auto it = live_.find(s.task);
  if (it == live_.end()) ++counts_.unknown_tasks;
  else e.name = it->second.name;
  if (s.start == SegmentStart::steal) {
    ++counts_.steals;
    if (it != live_.end()) {
      e.stolen = true;
      e.victim = it->second.creator;
      e.created_ns = it->second.created_ns;
    }
  }
  if (options_.power) {
    const double hz = stream_.header().level_hz[s.level];
    e.busy_w = options_.power->busy_w(hz);
    e.idle_w = options_.power->idle_w(hz);
  }
  sink_.segment(e);
  if (it != live_.end() && (s.end == SegmentEnd::completed || s.end == SegmentEnd::region_end)) live_.erase(it);
  last_ns_ = std::max(last_ns_, e.end_ns);
}

bool Driver::run(std::vector<std::string>& notes, std::string& error) {
  ExportContext context;
  context.header = &stream_.header();
  context.names = &names_;
  if (options_.power) context.power_source = options_.power->source_label();
  if (!sink_.begin(context, error)) return false;
  TraceStreamRecord r;
  while (stream_.next(r)) {
    ++counts_.records;
    if (r.kind == TraceStreamRecord::Kind::task) task(r.task);
    else if (r.kind == TraceStreamRecord::Kind::segment) segment(r.segment);
    else {
      if (r.wait.begin) ++counts_.waits;
      sink_.wait(ExportWait{r.wait.worker, r.wait.task, r.wait.kind, r.wait.begin, r.wait.time_ns});
      last_ns_ = std::max(last_ns_, r.wait.time_ns);
    }
  }
  if (!stream_.error().empty()) {
    error = stream_.error();
    return false;
  }
  counts_.names = names_.size() - 3;
  if (symbolizer_) notes.insert(notes.end(), symbolizer_->notes().begin(), symbolizer_->notes().end());
  if (counts_.unknown_tasks > 0)
    notes.push_back(std::to_string(counts_.unknown_tasks) + " segments of tasks without a task record (unnamed)");
  return sink_.end(last_ns_, error);
}

}  // namespace

bool export_stream(TraceStream& stream, const ExportDriverOptions& options, ExportSink& sink, ExportCounts& counts,
                   std::vector<std::string>& notes, std::string& error) {
  return Driver(stream, options, sink, counts).run(notes, error);
}

}  // namespace rubato::cli
