// Compares a rubato report (and optionally a trace) with what an OpenMP test
// program recorded about its own tasks (programs/ground_truth.hpp).
//
//   ompt_check --report R --truth G --log L [--trace T] [--flat]
//              [--max-depth-at-most N] [--expect-slowed] [--expect-dry-run]
//              [--no-frontend-notes]   (the report has no "ompt: ..." note)
//
// L is the tool's stderr at RUBATO_LOG=debug: its "rubato: worker W is thread
// TID" lines map OS thread ids to worker indices. Exit 0 when everything
// matches; otherwise one line per mismatch and exit 1.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "rubato/core/io/report.hpp"
#include "rubato/core/io/trace.hpp"

namespace {

struct TruthTask {
  long creator_tid, starter_tid;
  int creator_omp, starter_omp;
  std::vector<long> ran;  // threads that ran part of it (programs that record parts)
  long end_tid = 0;       // the thread that ran the end of its body; 0: not recorded
};
struct Truth {
  int threads = 0;
  std::vector<TruthTask> tasks;
  std::map<long, long> bound;  // creator tid -> max(created - started)
};

struct Options {
  std::string report, truth, log, trace;
  bool flat = false, expect_slowed = false, expect_dry_run = false, no_notes = false;
  long max_depth_at_most = -1;
};

int failures = 0;
void fail(const std::string& line) {
  std::printf("MISMATCH: %s\n", line.c_str());
  ++failures;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::printf("cannot read %s\n", path.c_str());
    std::exit(2);
  }
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Truth read_truth(const std::string& path) {
  Truth t;
  std::istringstream in(slurp(path));
  std::string kind;
  while (in >> kind) {
    if (kind == "threads") {
      in >> t.threads;
    } else if (kind == "task") {
      TruthTask task{};
      in >> task.creator_tid >> task.creator_omp >> task.starter_tid >> task.starter_omp;
      t.tasks.push_back(task);
    } else if (kind == "ran" || kind == "end") {
      long i = -1;
      in >> i;
      if (i < 0 || i >= static_cast<long>(t.tasks.size())) {
        std::printf("%s: '%s' names task %ld of %zu\n", path.c_str(), kind.c_str(), i, t.tasks.size());
        std::exit(2);
      }
      std::string rest;
      std::getline(in, rest);
      std::istringstream tids(rest);
      long tid = 0;
      while (tids >> tid) {
        if (kind == "ran") t.tasks[i].ran.push_back(tid);
        else t.tasks[i].end_tid = tid;
      }
    } else if (kind == "bound") {
      long tid = 0, b = 0;
      in >> tid >> b;
      t.bound[tid] = b;
    } else {
      std::printf("%s: unknown line '%s'\n", path.c_str(), kind.c_str());
      std::exit(2);
    }
  }
  return t;
}

std::map<long, rubato::WorkerId> read_worker_map(const std::string& path) {
  std::map<long, rubato::WorkerId> m;
  std::istringstream in(slurp(path));
  std::string line;
  while (std::getline(in, line)) {
    unsigned w = 0;
    long tid = 0;
    if (std::sscanf(line.c_str(), "rubato: worker %u is thread %ld", &w, &tid) == 2) m[tid] = w;
  }
  return m;
}

// Programs that record their tasks' parts (ground_truth.hpp, "Parts"): each
// task's segments ran on exactly the workers that ran its parts (launch stubs
// run no user code and are left out), and its one completed segment on the
// worker that ran its end. A task is named by its creator and its order among
// the explicit tasks that worker created, in the program's record and in the
// trace alike.
void check_parts(const Truth& truth, const rubato::Trace& t, const std::map<long, rubato::WorkerId>& worker_of) {
  std::map<rubato::WorkerId, std::vector<const rubato::TraceTask*>> traced;  // by creator, in creation order
  for (const rubato::TraceTask& task : t.tasks)
    if (task.flags & rubato::kTraceTaskExplicit) traced[task.creator].push_back(&task);
  std::map<long, std::size_t> order;  // creator tid -> tasks seen
  std::size_t checked = 0, moved = 0;
  int shown = 0;
  auto mismatch = [&](const std::string& line) {
    if (++shown <= 10) fail(line);
    else ++failures;
  };
  for (std::size_t i = 0; i < truth.tasks.size(); ++i) {
    const TruthTask& p = truth.tasks[i];
    const std::size_t k = order[p.creator_tid]++;
    if (p.end_tid == 0) continue;
    const auto w = worker_of.find(p.creator_tid);
    if (w == worker_of.end()) continue;  // reported elsewhere
    const auto& list = traced[w->second];
    if (k >= list.size()) {
      mismatch("parts: task " + std::to_string(i) + " (worker " + std::to_string(w->second) + "'s task " +
               std::to_string(k) + ") is not in the trace");
      continue;
    }
    const rubato::TraceTask& task = *list[k];
    std::vector<long> want;
    for (long tid : p.ran) {
      const auto it = worker_of.find(tid);
      want.push_back(it == worker_of.end() ? -1 : static_cast<long>(it->second));
    }
    std::sort(want.begin(), want.end());
    std::vector<long> got;
    long completed_on = -1;
    int completed = 0;
    for (const auto& s : task.segments) {
      if (s.start != rubato::SegmentStart::launch) got.push_back(s.worker);
      if (s.end == rubato::SegmentEnd::completed) {
        ++completed;
        completed_on = s.worker;
      }
    }
    std::sort(got.begin(), got.end());
    got.erase(std::unique(got.begin(), got.end()), got.end());
    moved += want.size() > 1;
    auto list_of = [](const std::vector<long>& v) {
      std::string s;
      for (long x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
      return "{" + s + "}";
    };
    if (got != want)
      mismatch("parts: task " + std::to_string(i) + " (trace id " + std::to_string(task.id) + ") ran on workers " +
               list_of(want) + ", its segments are on " + list_of(got));
    const auto e = worker_of.find(p.end_tid);
    if (completed != 1)
      mismatch("parts: task " + std::to_string(i) + " (trace id " + std::to_string(task.id) + ") has " +
               std::to_string(completed) + " completed segments");
    else if (e != worker_of.end() && completed_on != static_cast<long>(e->second))
      mismatch("parts: task " + std::to_string(i) + " (trace id " + std::to_string(task.id) + ") ended on worker " +
               std::to_string(e->second) + ", its completed segment is on " + std::to_string(completed_on));
    ++checked;
  }
  if (shown > 10) std::printf("(%d more part mismatches)\n", shown - 10);
  std::printf("parts: %zu tasks checked, %zu ran on more than one worker\n", checked, moved);
}

void check_trace(const Options& o, const Truth& truth, std::size_t steals,
                 const std::map<long, rubato::WorkerId>& worker_of) {
  std::string err;
  auto t = rubato::read_trace(o.trace, err);
  if (!t) return fail("trace: " + err);
  std::size_t explicit_tasks = 0, trace_steals = 0;
  for (const rubato::TraceTask& task : t->tasks) {
    if (!(task.flags & rubato::kTraceTaskExplicit)) continue;
    ++explicit_tasks;
    bool completed = false;
    for (const auto& s : task.segments) {
      trace_steals += s.start == rubato::SegmentStart::steal;
      completed = completed || s.end == rubato::SegmentEnd::completed;
      if (s.start == rubato::SegmentStart::steal && s.worker == task.creator)
        fail("trace: task " + std::to_string(task.id) + " stolen by its own creator");
    }
    if (!completed) fail("trace: task " + std::to_string(task.id) + " has no completed segment");
  }
  check_parts(truth, *t, worker_of);
  if (explicit_tasks != truth.tasks.size())
    fail("trace holds " + std::to_string(explicit_tasks) + " explicit tasks, the program made " +
         std::to_string(truth.tasks.size()));
  if (trace_steals != steals)
    fail("trace has " + std::to_string(trace_steals) + " steals, the program saw " + std::to_string(steals));
  if (t->dropped != 0) fail("trace dropped " + std::to_string(t->dropped) + " records");
  std::printf("trace: %zu records, %zu explicit tasks, %zu steals\n", static_cast<std::size_t>(t->records),
              explicit_tasks, trace_steals);
}

int run(const Options& o) {
  std::string err;
  auto report = rubato::report_from_json(slurp(o.report), err);
  if (!report) {
    std::printf("report: %s\n", err.c_str());
    return 2;
  }
  const Truth truth = read_truth(o.truth);
  const auto worker_of = read_worker_map(o.log);
  auto worker = [&](long tid) -> long {
    auto it = worker_of.find(tid);
    if (it == worker_of.end()) {
      fail("thread " + std::to_string(tid) + " ran tasks but the tool named no worker for it");
      return -1;
    }
    return it->second;
  };

  // Ground truth: a task started on another thread than its creator's was stolen.
  std::map<long, std::uint64_t> steals, stolen_from;
  std::size_t total_steals = 0;
  for (const TruthTask& t : truth.tasks) {
    const long c = worker(t.creator_tid), s = worker(t.starter_tid);
    if (o.flat && (c != t.creator_omp || s != t.starter_omp))
      fail("worker index differs from the OpenMP thread number (worker " + std::to_string(c) + "/" + std::to_string(s) +
           ", threads " + std::to_string(t.creator_omp) + "/" + std::to_string(t.starter_omp) + ")");
    if (t.creator_tid == t.starter_tid) continue;
    ++steals[s];
    ++stolen_from[c];
    ++total_steals;
  }

  std::uint64_t completed = 0, pushes = 0, pops = 0, stolen = 0, report_steals = 0, level_changes = 0;
  double slow_busy = 0, delay = 0;
  for (const rubato::WorkerReport& w : report->workers) {
    completed += w.tasks_completed;
    pushes += w.pushes;
    pops += w.pops;
    stolen += w.stolen_from;
    report_steals += w.steals;
    level_changes += w.level_changes;
    delay += w.emulated_delay_s;
    for (std::size_t l = 1; l < w.busy_s_at_level.size(); ++l) slow_busy += w.busy_s_at_level[l];
    if (w.steals != steals[w.id])
      fail("worker " + std::to_string(w.id) + " steals: report " + std::to_string(w.steals) + ", program " +
           std::to_string(steals[w.id]));
    if (w.stolen_from != stolen_from[w.id])
      fail("worker " + std::to_string(w.id) + " stolen-from: report " + std::to_string(w.stolen_from) + ", program " +
           std::to_string(stolen_from[w.id]));
    if (o.max_depth_at_most >= 0 && static_cast<long>(w.max_depth) > o.max_depth_at_most)
      fail("worker " + std::to_string(w.id) + " max depth " + std::to_string(w.max_depth) + " > " +
           std::to_string(o.max_depth_at_most));
  }
  for (const auto& [tid, b] : truth.bound) {
    const long w = worker(tid);
    const long lower = b - (truth.threads - 1);
    for (const rubato::WorkerReport& r : report->workers)
      if (static_cast<long>(r.id) == w && static_cast<long>(r.max_depth) < lower)
        fail("worker " + std::to_string(w) + " max depth " + std::to_string(r.max_depth) + " < the program's bound " +
             std::to_string(lower));
  }
  for (const auto& [w, n] : steals) {
    bool seen = false;
    for (const auto& r : report->workers) seen = seen || static_cast<long>(r.id) == w;
    if (!seen && n > 0)
      fail("worker " + std::to_string(w) + " stole " + std::to_string(n) + " tasks but is not in the report");
  }
  if (report_steals != total_steals)
    fail("total steals: report " + std::to_string(report_steals) + ", program " + std::to_string(total_steals));
  if (completed != truth.tasks.size())
    fail("tasks completed " + std::to_string(completed) + " != tasks created by the program " +
         std::to_string(truth.tasks.size()));
  if (pushes != pops + stolen)
    fail("queues not drained: pushes " + std::to_string(pushes) + " != pops " + std::to_string(pops) + " + stolen " +
         std::to_string(stolen));
  if (report->dropped_events != 0) fail("dropped events: " + std::to_string(report->dropped_events));
  if (report->tool_errors != 0) fail("tool errors: " + std::to_string(report->tool_errors));
  if (report->frontend != "ompt") fail("frontend is '" + report->frontend + "'");
  if (o.expect_slowed) {
    if (report->backend != "emulated") fail("backend is '" + report->backend + "', expected emulated");
    if (slow_busy <= 0) fail("no busy time below the fastest tempo: thieves were not slowed");
    if (delay <= 0) fail("no emulated delay reported");
    // Every segment at level l is stretched to f_max/f_l of itself (beta 1), so
    // the emulated part of busy time at l is (1 - f_l/f_max) of it, and the
    // report's busy_s_at_level must include it. The emulator stretches the CPU
    // time a segment ran (not wall time), busy time is wall time: a thread
    // preempted during a slow segment (a loaded machine, a parallel test run)
    // gets less than the wall-time figure, never more. How much less depends
    // on the load alone (under TSan beside a test run: 43 % of it), so the
    // lower bound is the one above: some delay was added.
    const auto beta = report->parameters.find("beta");
    const auto& hz = report->frequencies_hz;
    if (beta != report->parameters.end() && std::stod(beta->second) == 1.0 && !hz.empty()) {
      double expected = 0;
      for (const rubato::WorkerReport& w : report->workers)
        for (std::size_t l = 1; l < w.busy_s_at_level.size() && l < hz.size(); ++l)
          expected += w.busy_s_at_level[l] * (1.0 - hz[l] / hz[0]);
      if (delay > 1.01 * expected + 1e-6)
        fail("emulated delay " + std::to_string(delay) +
             " s is not the stretch of the slow busy time (expected at most " + std::to_string(expected) + " s)");
    }
  }
  if (o.expect_dry_run) {
    if (report->backend != "dry-run") fail("backend is '" + report->backend + "', expected dry-run");
    if (level_changes == 0) fail("no tempo decisions recorded");
    if (delay != 0) fail("a dry run added delay");
  }
  if (!o.trace.empty()) check_trace(o, truth, total_steals, worker_of);
  if (o.no_notes)  // e.g. "tasks nested deeper than ..."
    for (const std::string& n : report->notes)
      if (n.find("ompt:") != std::string::npos && n.find("worker slots taken") == std::string::npos)
        fail("front-end note: " + n);
  std::printf("%zu tasks, %zu steals, %zu workers; busy below fastest %.6fs, emulated delay %.6fs\n",
              truth.tasks.size(), total_steals, report->workers.size(), slow_busy, delay);
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::printf("%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--report") o.report = value();
    else if (a == "--truth") o.truth = value();
    else if (a == "--log") o.log = value();
    else if (a == "--trace") o.trace = value();
    else if (a == "--flat") o.flat = true;
    else if (a == "--max-depth-at-most") o.max_depth_at_most = std::atol(value().c_str());
    else if (a == "--expect-slowed") o.expect_slowed = true;
    else if (a == "--expect-dry-run") o.expect_dry_run = true;
    else if (a == "--no-frontend-notes") o.no_notes = true;
    else {
      std::printf("unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  if (o.report.empty() || o.truth.empty() || o.log.empty()) {
    std::printf("usage: ompt_check --report R --truth G --log L [--trace T] [options]\n");
    return 2;
  }
  return run(o);
}
