// What a test program records about its own tasks, independently of rubato:
// for each task, the worker (this_task_arena::current_thread_index()) that
// spawned it and the one that ran it. The report must agree exactly.
#pragma once

#include <catch2/catch.hpp>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>

#include <atomic>
#include <bit>
#include <chrono>
#include <thread>
#include <cstddef>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

#include "rubato/core/io/report.hpp"
#include "rubato/core/config/settings.hpp"
#include "rubato/tbb/observer.hpp"

namespace rubato::test {

inline int this_worker() { return ::tbb::this_task_arena::current_thread_index(); }

class GroundTruth {
 public:
  explicit GroundTruth(std::size_t capacity) : spawner_(capacity), runner_(capacity) {
    for (auto& s : spawner_) s.store(-1);
    for (auto& r : runner_) r.store(-1);
  }

  // The calling thread spawns a task: its id.
  std::size_t spawn() {
    const std::size_t id = next_.fetch_add(1);
    if (id >= spawner_.size()) throw std::length_error("GroundTruth capacity exceeded");
    spawner_[id].store(this_worker());
    return id;
  }
  // The calling thread runs task `id`.
  void ran(std::size_t id) { runner_[id].store(this_worker()); }
  // One piece of work spawned by `spawner` ran here (parallel_for pieces).
  void ran_piece(int spawner) {
    const std::size_t id = next_.fetch_add(1);
    if (id >= spawner_.size()) throw std::length_error("GroundTruth capacity exceeded");
    spawner_[id].store(spawner);
    runner_[id].store(this_worker());
  }

  std::size_t tasks() const { return next_.load(); }

  struct Counts {
    std::uint64_t pushes = 0, pops = 0, steals = 0, stolen_from = 0, ran = 0;
  };
  // Per worker index; tasks that never ran are counted as pushes only.
  std::map<int, Counts> per_worker() const {
    std::map<int, Counts> out;
    for (std::size_t i = 0; i < tasks(); ++i) {
      const int s = spawner_[i].load(), r = runner_[i].load();
      ++out[s].pushes;
      if (r < 0) continue;
      ++out[r].ran;
      if (r == s) {
        ++out[r].pops;
      } else {
        ++out[r].steals;
        ++out[s].stolen_from;
      }
    }
    return out;
  }
  std::uint64_t total_steals() const {
    std::uint64_t n = 0;
    for (const auto& [w, c] : per_worker()) n += c.steals;
    return n;
  }

 private:
  std::vector<std::atomic<int>> spawner_;
  std::vector<std::atomic<int>> runner_;
  std::atomic<std::size_t> next_{0};
};

// Makes sure several workers take part: a worker that arrives waits (up to a
// timeout) until `n` distinct workers have arrived. On a loaded machine oneTBB's
// workers can take long to wake; short programs would otherwise often run on
// the calling thread alone and steal nothing.
class Rendezvous {
 public:
  explicit Rendezvous(int n) : n_(n) {}
  void arrive() {
    const int w = this_worker();
    if (w >= 0 && w < 64) seen_.fetch_or(std::uint64_t{1} << w);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::popcount(seen_.load()) < n_ && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  }
  int arrived() const { return std::popcount(seen_.load()); }

 private:
  int n_;
  std::atomic<std::uint64_t> seen_{0};
};

// Settings for in-process tests: no report file, no machine changes, quiet.
inline Environment quiet_env(Environment extra = {}) {
  Environment env{{"RUBATO_REPORT", ""}, {"RUBATO_BACKEND", "dry-run"}, {"RUBATO_LOG", "error"}};
  for (auto& kv : extra) env.push_back(std::move(kv));
  return env;
}

// Runs `body` in an arena of `threads` threads (workers beyond the machine's
// cores are allowed) observed by rubato, and returns the report.
template <class F>
Report run_observed(int threads, const Environment& env, F&& body) {
  ::tbb::global_control limit(::tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
  ::tbb::task_arena arena(threads);
  rubato::tbb::observer obs(arena, env);
  if (!obs.active()) throw std::runtime_error("rubato observer did not start");
  arena.execute(body);
  return obs.finish();
}

// Totals over a report's workers.
struct ReportTotals {
  std::uint64_t pushes = 0, pops = 0, steals = 0, stolen_from = 0, completed = 0;
};
inline ReportTotals totals(const Report& r) {
  ReportTotals t;
  for (const auto& w : r.workers) {
    t.pushes += w.pushes;
    t.pops += w.pops;
    t.steals += w.steals;
    t.stolen_from += w.stolen_from;
    t.completed += w.tasks_completed;
  }
  return t;
}

// The report agrees exactly with what the program recorded, worker by worker,
// and every spawned task ran and completed once.
inline void check_exact(const Report& r, const GroundTruth& gt) {
  const auto truth = gt.per_worker();
  std::map<int, const WorkerReport*> seen;
  for (const auto& w : r.workers) seen[static_cast<int>(w.id)] = &w;
  for (const auto& [w, c] : truth) {
    INFO("worker " << w);
    REQUIRE(w >= 0);
    REQUIRE(seen.count(w) == 1);
    const WorkerReport& rep = *seen[w];
    CHECK(rep.pushes == c.pushes);
    CHECK(rep.pops == c.pops);
    CHECK(rep.steals == c.steals);
    CHECK(rep.stolen_from == c.stolen_from);
    CHECK(rep.tasks_completed == c.ran);
  }
  for (const auto& w : r.workers) {
    if (truth.count(static_cast<int>(w.id))) continue;
    INFO("worker " << w.id << " has no recorded task");
    CHECK(w.pushes == 0);
    CHECK(w.steals == 0);
    CHECK(w.tasks_completed == 0);
  }
  const ReportTotals t = totals(r);
  CHECK(t.pushes == gt.tasks());
  CHECK(t.pops + t.steals == gt.tasks());
  CHECK(t.completed == gt.tasks());
  CHECK(t.steals == gt.total_steals());
  CHECK(r.dropped_events == 0);
  CHECK(r.tool_errors == 0);
}

}  // namespace rubato::test
