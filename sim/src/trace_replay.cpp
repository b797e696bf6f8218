#include "rubato/sim/trace_replay.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>

namespace rubato::sim {
namespace {

struct Op {
  Step::Kind kind;
  std::uint32_t child = 0;  // spawn: script index
  double ref_ns = 0;        // work
};

// All scripts in one array; frame.a is the script index, frame.pc the op.
class TraceShape final : public Shape {
 public:
  TraceShape(WorkClass wc, std::vector<Op> ops, std::vector<std::uint32_t> start, std::vector<TaskType> types)
      : Shape(wc), ops_(std::move(ops)), start_(std::move(start)), types_(std::move(types)) {}
  TaskType task_type(const Frame& f) const noexcept override {
    const auto i = static_cast<std::size_t>(f.a);
    return i < types_.size() ? types_[i] : kUntypedTask;
  }
  Step next(Frame& f) const override {
    const Op& op = ops_[start_[static_cast<std::size_t>(f.a)] + f.pc++];
    switch (op.kind) {
      case Step::Kind::work: return Step::work(op.ref_ns);
      case Step::Kind::spawn: return Step::spawn(this, op.child);
      case Step::Kind::sync: return Step::sync();
      case Step::Kind::ret: break;
    }
    return Step::ret();
  }

 private:
  std::vector<Op> ops_;
  std::vector<std::uint32_t> start_;
  std::vector<TaskType> types_;  // per script: its task's code address as a type
};

// Each distinct code address (the recording's task construct) one type, in
// order of first appearance; beyond kMaxTaskTypes − 1 addresses, untyped.
std::vector<TaskType> script_types(const Trace& trace, std::vector<std::string>& names) {
  std::vector<std::uint64_t> seen;
  std::vector<TaskType> types;
  for (const TraceTask& t : trace.tasks) {
    if (t.code == 0) {
      types.push_back(kUntypedTask);
      continue;
    }
    auto it = std::find(seen.begin(), seen.end(), t.code);
    if (it == seen.end() && seen.size() + 1 < kMaxTaskTypes) it = seen.insert(seen.end(), t.code);
    types.push_back(it == seen.end() ? kUntypedTask : static_cast<TaskType>(it - seen.begin() + 1));
  }
  names.assign(seen.size() + 1, "");
  for (std::size_t i = 0; i < seen.size(); ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "code 0x%llx", static_cast<unsigned long long>(seen[i]));
    names[i + 1] = buf;
  }
  return types;
}

class ScriptBuilder {
 public:
  ScriptBuilder(const Trace& t, double beta) : beta_(beta) {
    const auto& hz = t.header.level_hz;
    for (std::size_t l = 0; l < hz.size(); ++l) scale_.push_back(hz.front() > 0 ? hz[l] / hz.front() : 1.0);
  }

  void work(std::uint64_t ns, std::uint8_t level) {
    if (ns == 0) return;
    const double s = level < scale_.size() ? scale_[level] : 1.0;
    const double ref = static_cast<double>(ns) * (beta_ * s + (1 - beta_));
    if (!ops_.empty() && ops_.back().kind == Step::Kind::work && ops_.size() > script_begin_) ops_.back().ref_ns += ref;
    else ops_.push_back({Step::Kind::work, 0, ref});
  }
  void spawn(std::uint32_t child) { ops_.push_back({Step::Kind::spawn, child, 0}); }
  void sync() { ops_.push_back({Step::Kind::sync, 0, 0}); }
  void begin_script() {
    script_begin_ = ops_.size();
    start_.push_back(static_cast<std::uint32_t>(ops_.size()));
  }
  void end_script() { ops_.push_back({Step::Kind::ret, 0, 0}); }

  std::vector<Op> ops_;
  std::vector<std::uint32_t> start_;

 private:
  double beta_;
  std::vector<double> scale_;
  std::size_t script_begin_ = 0;
};

struct Item {
  std::uint64_t t;
  int order;  // spawns before waits at the same instant, then recording order
  bool is_spawn;
  std::uint32_t child;
};

bool is_explicit(const TraceTask& t) { return (t.flags & kTraceTaskExplicit) != 0; }
bool is_initial(const TraceTask& t) { return (t.flags & kTraceTaskInitial) != 0; }

std::uint64_t first_ns(const TraceTask& t) { return t.segments.empty() ? t.created_ns : t.segments.front().start_ns; }
std::uint64_t last_ns(const TraceTask& t) {
  std::uint64_t end = t.created_ns;
  for (const auto& s : t.segments) end = std::max(end, s.start_ns + s.duration_ns);
  return end;
}

// Which tasks are replayed, and which of them sit at the top level.
struct Selection {
  std::vector<char> replayed;  // by task index
  std::vector<std::size_t> top;
  std::uint64_t undeferred = 0;   // explicit tasks recorded as undeferred
  std::uint64_t no_segments = 0;  // explicit tasks that never ran
};

Selection select_tasks(const Trace& trace, TraceProgramInfo& in) {
  Selection sel;
  sel.replayed.assign(trace.tasks.size(), 0);
  for (std::size_t i = 0; i < trace.tasks.size(); ++i) {
    const TraceTask& t = trace.tasks[i];
    if (is_initial(t)) continue;
    if (is_explicit(t)) {
      sel.replayed[i] = 1;
      ++in.explicit_tasks;
      if (!(t.flags & kTraceTaskDeferred)) ++sel.undeferred;
      if (t.segments.empty()) ++sel.no_segments;
      const TraceTask* parent = t.parent ? trace.find(t.parent) : nullptr;
      if (!parent || is_initial(*parent)) sel.top.push_back(i);
      continue;
    }
    std::uint64_t busy = 0;
    for (const auto& s : t.segments) busy += s.duration_ns;
    if (busy > 0 || !t.children.empty()) {
      sel.replayed[i] = 1;
      sel.top.push_back(i);
    }
  }
  return sel;
}

std::uint64_t recorded_steals(const Trace& trace) {
  std::uint64_t steals = 0;
  for (const TraceTask& t : trace.tasks)
    for (const auto& s : t.segments)
      if (s.start == SegmentStart::steal) ++steals;
  return steals;
}

// Task t's spawns (its replayed explicit children, when created) and waits,
// in time order into `items`. Returns how many waits were taskgroup or
// barrier waits (replayed as waits for direct children).
std::uint64_t task_events(const Trace& trace, const TraceTask& t, const std::vector<char>& replayed,
                          std::vector<Item>& items) {
  items.clear();
  int order = 0;
  for (std::uint64_t id : t.children) {
    const auto c = trace.index.find(id);
    if (c == trace.index.end() || !replayed[c->second] || !is_explicit(trace.tasks[c->second])) continue;
    items.push_back({trace.tasks[c->second].created_ns, order++, true, static_cast<std::uint32_t>(c->second)});
  }
  std::uint64_t group_waits = 0;
  for (const TraceWait& w : t.waits) {
    if (w.kind != WaitKind::taskwait) ++group_waits;
    items.push_back({w.begin_ns, order++, false, 0});
  }
  std::stable_sort(items.begin(), items.end(), [](const Item& x, const Item& y) {
    if (x.t != y.t) return x.t < y.t;
    return x.is_spawn && !y.is_spawn;
  });
  return group_waits;
}

// Task t's script body: its segments' work, cut at its events (`items`).
void add_task_steps(ScriptBuilder& b, const TraceTask& t, const std::vector<Item>& items) {
  std::size_t k = 0;
  auto emit = [&](const Item& it) { it.is_spawn ? b.spawn(it.child) : b.sync(); };
  for (std::size_t s = 0; s < t.segments.size(); ++s) {
    const TraceSegment& seg = t.segments[s];
    const std::uint64_t end = seg.start_ns + seg.duration_ns;
    std::uint64_t at = seg.start_ns;
    // Items up to this segment's end (any left before the next segment starts belong here too).
    const std::uint64_t limit = s + 1 < t.segments.size() ? t.segments[s + 1].start_ns : UINT64_MAX;
    while (k < items.size() && items[k].t < limit) {
      const std::uint64_t when = std::clamp(items[k].t, at, end);
      b.work(when - at, seg.level);
      at = when;
      emit(items[k++]);
    }
    b.work(end - at, seg.level);
  }
  while (k < items.size()) emit(items[k++]);
}

// The root script: top-level tasks whose executions overlap form one phase.
void add_root_script(ScriptBuilder& b, const Trace& trace, std::vector<std::size_t> top, TraceProgramInfo& in) {
  std::stable_sort(top.begin(), top.end(),
                   [&](std::size_t x, std::size_t y) { return first_ns(trace.tasks[x]) < first_ns(trace.tasks[y]); });
  b.begin_script();
  std::uint64_t phase_end = 0;
  bool open = false;
  for (std::size_t i : top) {
    const TraceTask& t = trace.tasks[i];
    if (open && first_ns(t) >= phase_end) {
      b.sync();
      open = false;
    }
    if (!open) {
      ++in.phases;
      phase_end = 0;
      open = true;
    }
    phase_end = std::max(phase_end, last_ns(t));
    b.spawn(static_cast<std::uint32_t>(i));
    ++in.top_level;
  }
  b.sync();
  b.end_script();
}

// The approximations the replay made, each with how often.
void note_approximations(std::vector<std::string>& notes, const Trace& trace, const Selection& sel,
                         std::uint64_t group_waits) {
  if (sel.undeferred)
    notes.push_back("trace: " + std::to_string(sel.undeferred) + " undeferred tasks replayed as deferred");
  if (group_waits)
    notes.push_back("trace: " + std::to_string(group_waits) +
                    " taskgroup/barrier waits replayed as waits for direct children");
  if (sel.no_segments)
    notes.push_back("trace: " + std::to_string(sel.no_segments) +
                    " tasks never ran in the recording (no work replayed)");
  if (trace.dropped) notes.push_back("trace: the recording dropped " + std::to_string(trace.dropped) + " records");
}

}  // namespace

Program build_trace_program(const Trace& trace, double beta, std::vector<std::string>& notes, TraceProgramInfo* info) {
  return build_trace_program(trace, WorkSensitivity{beta, 0.0}, notes, info);
}

Program build_trace_program(const Trace& trace, const WorkSensitivity& sensitivity, std::vector<std::string>& notes,
                            TraceProgramInfo* info) {
  if (const std::string error = sensitivity_error(sensitivity); !error.empty())
    throw std::invalid_argument("trace replay: " + error);
  const double beta = sensitivity.core;
  TraceProgramInfo local;
  TraceProgramInfo& in = info ? *info : local;
  in = TraceProgramInfo{};
  const Selection sel = select_tasks(trace, in);
  in.recorded_steals = recorded_steals(trace);

  // Script index = task index; the root script comes last.
  ScriptBuilder b(trace, beta);
  std::vector<Item> items;
  std::uint64_t group_waits = 0;
  for (std::size_t i = 0; i < trace.tasks.size(); ++i) {
    b.begin_script();
    if (sel.replayed[i]) {
      group_waits += task_events(trace, trace.tasks[i], sel.replayed, items);
      add_task_steps(b, trace.tasks[i], items);
    }
    b.end_script();
  }
  add_root_script(b, trace, sel.top, in);
  note_approximations(notes, trace, sel, group_waits);

  Program prog;
  prog.description = "trace";
  const WorkClass work_class{beta, 0.0, sensitivity.uncore};
  prog.shapes.push_back(std::make_unique<TraceShape>(work_class, std::move(b.ops_), std::move(b.start_),
                                                     script_types(trace, prog.task_type_names)));
  prog.root = prog.shapes.back().get();
  prog.root_a = static_cast<std::int64_t>(trace.tasks.size());
  return prog;
}

}  // namespace rubato::sim
