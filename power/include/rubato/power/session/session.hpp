// One rubato session per process: reads the settings, chooses the platform
// back-ends (frequency control, energy meter, binding, state save/restore),
// builds the engine, and at the end writes the report and restores the
// machine. The OMPT tool and the TBB observer are thin front-ends over it.
//
// Never throws and never stops the host program: problems become one stderr
// line (per problem) and a note in the report.
#pragma once

#include <memory>
#include <string>

#include "rubato/core/tempo/engine.hpp"
#include "rubato/core/io/report.hpp"
#include "rubato/core/config/settings.hpp"
#include "rubato/core/efs/throttle_actuator.hpp"

namespace rubato {

class OperatingPoint;

struct SessionInfo {
  std::string frontend;         // "ompt", "tbb", "tbb-preload"
  std::string runtime;          // "libomp 16", "oneTBB 2021.8"
  bool steals_observed = true;  // false in TBB preload mode
};

class Session {
 public:
  virtual ~Session() = default;

  // nullptr when RUBATO_ENABLE=0 or when no usable engine can be built (the
  // reason is printed once). `env`: the process environment.
  static std::unique_ptr<Session> open(const Environment& env, SessionInfo info);

  virtual Engine& engine() noexcept = 0;
  virtual const Settings& settings() const noexcept = 0;

  // A runtime thread became worker `w` / stopped being one. Static binding pins
  // here; idempotent (TBB re-enters arenas).
  virtual void worker_started(WorkerId w) noexcept = 0;
  virtual void worker_stopped(WorkerId w) noexcept = 0;
  // Dynamic binding ([HERMES] §3.4): pin around each task; no-ops otherwise.
  virtual void before_task(WorkerId w) noexcept = 0;
  virtual void after_task(WorkerId w) noexcept = 0;

  // Starts the periodic controllers the policy names (efs, affinity,
  // min-energy) that can run here (power/controller_host.hpp); those that
  // cannot say why once. `throttle`: the front-end's actuator for efs,
  // nullptr when it has none; it must outlive finish(). Call once, before the
  // first worker starts. min-energy alone needs no actuator: the session
  // starts it when it opens, and this call then does nothing.
  virtual void start_controllers(ThrottleActuator* /*throttle*/) noexcept {}

  // min-energy's operating point (rubato/power/session/operating_point.hpp):
  // the uncore frequency now and the work's sensitivities now, for the
  // emulator to stretch the uncore-sensitive part of a segment. Any thread;
  // nullptr where the policy has no min-energy. Lives until the session ends.
  virtual const OperatingPoint* operating_point() const noexcept { return nullptr; }

  // The closed loop's task types (rubato/core/tempo/task_type_stats.hpp):
  // the type of the kind of task whose code `code` stands for (OMPT's
  // codeptr_ra, a oneTBB task's vtable), for Engine::set_task_type before
  // each segment. 0 (untyped) where the engine records no types (call it
  // only when engine().records_task_types()) or `code` is 0. Thread-safe; a
  // lock the first time a code is met: front-ends cache the answer per thread.
  virtual TaskType task_type_for(std::uint64_t /*code*/) noexcept { return kUntypedTask; }

  // Adds a line to the report's notes (e.g. "steals not observed in preload mode").
  virtual void note(std::string line) noexcept = 0;
  // Counts an error caught inside a callback (reported at finish).
  virtual void count_error() noexcept = 0;

  // The process is ending through exit() with `status` (its low 8 bits, as a
  // shell sees them): the report's exit_status. A front-end that learns it
  // (glibc's on_exit) calls this before finish(); without it the report
  // leaves the field out. Any thread; the last call before finish() counts.
  virtual void exiting_with(int /*status*/) noexcept {}

  // Ends the session: collects the engine's figures and the energy, writes the
  // report to RUBATO_REPORT, restores machine state. Idempotent; later calls
  // return the same report.
  virtual const Report& finish() noexcept = 0;
};

}  // namespace rubato
