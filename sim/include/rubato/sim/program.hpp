// What the simulated program does: a fork-join task tree generated lazily.
// A Frame is one live task (a few words); its Shape says, step by step, what it
// does next (work, spawn a child, wait for its children, return). Frames exist
// only while their task is live, so memory follows the live frontier, not the
// whole DAG.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rubato/core/base/types.hpp"
#include "rubato/core/model/work_sensitivity.hpp"
#include "rubato/core/tempo/task_type_stats.hpp"

namespace rubato::sim {

class Shape;

struct Frame {
  const Shape* shape = nullptr;
  Frame* parent = nullptr;
  std::uint64_t id = 0;        // identity from the spawn path: same DAG whatever the schedule
  std::int64_t a = 0, b = 0;   // the shape's arguments (a range, a size, a depth...)
  std::uint32_t pc = 0;        // the shape's program counter
  std::uint32_t pending = 0;   // children spawned whose subtrees are not yet done
  std::uint32_t spawned = 0;   // children spawned so far (child identities)
  std::uint32_t depth = 0;     // spawn depth (tied-task constraint)
  WorkerId owner = kNoWorker;  // omp model: the worker it is tied to once started
  bool suspended = false;      // waiting at a sync for its children
  bool returned = false;       // finished, but children still outstanding (traces only)
};

// How a piece of work responds to core and uncore frequency and to memory
// contention: its time at core f and uncore fu is w · T(f, fu) / T(reference)
// of the one model (rubato/core/model/time_model.hpp), w (beta f_ref/f + 1 −
// beta) when uncore = 0.
struct WorkClass {
  double beta = 1.0;    // b_c, the core-sensitive share (the β of the β model)
  double bus = 0.0;     // solo memory-bus utilisation ([EFS] b_i), for the contention model
  double uncore = 0.0;  // b_u, the share moving data at the memory system's bandwidth
  WorkSensitivity sensitivity() const noexcept { return {beta, uncore}; }
};

struct Step {
  enum class Kind : std::uint8_t { work, spawn, sync, ret };
  Kind kind = Kind::ret;
  double ref_ns = 0;             // work: duration at the reference (fastest) frequency
  const Shape* child = nullptr;  // spawn
  std::int64_t a = 0, b = 0;     // spawn: the child's arguments

  static Step work(double ns) {
    Step s;
    s.kind = Kind::work;
    s.ref_ns = ns;
    return s;
  }
  static Step spawn(const Shape* c, std::int64_t ca, std::int64_t cb = 0) {
    Step s;
    s.kind = Kind::spawn;
    s.child = c;
    s.a = ca;
    s.b = cb;
    return s;
  }
  static Step sync() {
    Step s;
    s.kind = Kind::sync;
    return s;
  }
  static Step ret() {
    Step s;
    s.kind = Kind::ret;
    return s;
  }
};

class Shape {
 public:
  explicit Shape(WorkClass wc) : work_class_(wc) {}
  virtual ~Shape() = default;
  // The frame's next step; advances f.pc. Called only by the worker running f.
  virtual Step next(Frame& f) const = 0;
  const WorkClass& work_class() const noexcept { return work_class_; }
  // The task type the engine measures f's segments under (a live run's task
  // construct): the shape's own by default; a trace's tasks say theirs.
  virtual TaskType task_type(const Frame&) const noexcept { return task_type_; }
  void set_task_type(TaskType t) noexcept { task_type_ = t < kMaxTaskTypes ? t : kUntypedTask; }

 private:
  WorkClass work_class_;
  TaskType task_type_ = kUntypedTask;
};

// A whole program: the shapes it uses and its root task.
struct Program {
  std::string description;                   // the DAG spec or the trace path, for reports
  std::vector<std::string> task_type_names;  // by task type: what the report calls it ("" where unnamed)
  std::vector<std::unique_ptr<Shape>> shapes;
  const Shape* root = nullptr;
  std::int64_t root_a = 0, root_b = 0;
};

// splitmix64's finaliser: spreads a counter or a combination evenly over 64 bits.
inline std::uint64_t mix64(std::uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Deterministic identity of the i-th child of `parent_id` .
inline std::uint64_t child_id(std::uint64_t parent_id, std::uint32_t index) noexcept {
  return mix64(parent_id * 0x9E3779B97F4A7C15ull + index + 1);
}
// A value in [0, 1) from an identity and a seed: the DAG's own randomness.
double unit_hash(std::uint64_t id, std::uint64_t seed) noexcept;

}  // namespace rubato::sim
