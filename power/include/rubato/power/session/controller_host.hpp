// The periodic controllers of a run (docs/design.md "Threads": efs, [EFS] §4;
// affinity, [META] §V.E; min-energy, docs/min-energy.md): a controller thread
// that every RUBATO_CONTROL_INTERVAL reads the counter sources, steps the
// controllers (pure, in core/) and carries out what they decide — parking or
// resuming targets through the front-end's ThrottleActuator, moving them
// between CPUs with a ThreadAffinityKeeper, setting the engine's core
// ceiling and the uncore through an UncoreControl. A
// Session hosts one for its workers; `rubato run --mix` hosts one for its
// programs. Nothing here runs on a task's path: targets are announced when
// they start and stop.
//
// A controller whose metrics (or actuator) are missing here says so in one
// line at start and stays off: the run is then what the tempo policy alone
// makes it (baseline when it is `efs` or `affinity` alone).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rubato/core/base/clock.hpp"
#include "rubato/core/config/policy.hpp"
#include "rubato/core/io/report.hpp"
#include "rubato/core/config/settings.hpp"
#include "rubato/core/efs/throttle_actuator.hpp"
#include "rubato/core/min_energy/learner.hpp"
#include "rubato/core/min_energy/min_energy_controller.hpp"
#include "rubato/core/tempo/engine.hpp"
#include "rubato/power/machine/profile.hpp"
#include "rubato/power/machine/topology.hpp"

namespace rubato {

class OperatingPoint;
class UncoreControl;

enum class TargetKind {
  workers,   // threads of one task runtime: they share one pool of work, each waits on its own
  programs,  // whole programs (a --mix): each its own work, they share the CPUs as CFS shares a core
};

struct ControllerSetup {
  PolicySpec policy;                      // efs / affinity
  std::string counters = "auto";          // RUBATO_COUNTERS
  double interval_s = 0.01;               // RUBATO_CONTROL_INTERVAL
  std::optional<MachineProfile> profile;  // µ and P0..Pn (efs), core power (affinity)
  std::vector<int> cpus;                  // online CPUs: where targets run and may be placed
  std::vector<CacheInfo> caches;          // which CPUs share a last-level cache (affinity)
  TargetKind kind = TargetKind::workers;
  ThrottleActuator* throttle = nullptr;  // efs acts through it; must outlive the host
  const Clock* clock = nullptr;          // nullptr: the steady clock
  std::uint64_t origin_ns = 0;           // the run's start on `clock` (events' t_s)
  // min-energy: its parameters (policy.min_energy without them: it cannot
  // run, and says so), the engine whose core ceiling it sets and whose
  // workers' activity it reads, the uncore lever (nullptr: the uncore is not
  // moved), where it publishes the operating point (nullptr: nowhere), and
  // the model's label for the report ("modeled:<profile>"). All must outlive the host.
  std::optional<min_energy::ControllerParams> min_energy;
  Engine* engine = nullptr;
  UncoreControl* uncore = nullptr;
  OperatingPoint* operating_point = nullptr;
  std::string model_label;
  // min-energy's closed loop (docs/min-energy.md): its parameters (nullopt:
  // the open loop), the meter's joules since the start (unset or nullopt:
  // none reads during the run) and the task types' names, both called on the
  // controller thread.
  std::optional<min_energy::LearnerParams> learner;
  std::function<std::optional<double>()> energy_j;
  std::function<std::vector<std::string>()> task_type_names;
};

// The setup a run's settings give (policy, RUBATO_COUNTERS, RUBATO_CONTROL_INTERVAL)
// on this machine (profile, CPUs, caches); the caller adds the actuator and clock.
ControllerSetup controller_setup_for(const Settings& settings, const std::optional<MachineProfile>& profile,
                                     const Topology& topology, TargetKind kind);

class ControllerHost {
 public:
  // Starts the controller thread when at least one controller can run; else
  // nullptr. `warnings`: one line per controller that cannot run, for the
  // caller to print and note ("efs is off (why); the run is baseline").
  static std::unique_ptr<ControllerHost> start(ControllerSetup setup, std::vector<std::string>& warnings);
  ~ControllerHost();
  ControllerHost(const ControllerHost&) = delete;
  ControllerHost& operator=(const ControllerHost&) = delete;

  // A target's thread (tid 0: every thread of process pid) started or stopped.
  // Thread-safe; cheap when the same thread announces itself again.
  void target_started(std::uint64_t id, int pid, int tid) noexcept;
  void target_stopped(std::uint64_t id) noexcept;

  // Stops deciding, lets every target run, puts every moved thread's CPU mask
  // back. Idempotent; called before fill_report.
  void stop() noexcept;
  // Per worker throttled_s (report.workers must hold the targets), throttle
  // events, migrations, min-energy's decisions, counter availability,
  // parameters and notes.
  void fill_report(Report& r) const;
  // min-energy: the time the uncore spent at each frequency it set (after
  // stop(); empty without min-energy), for the power model.
  std::vector<std::pair<double, double>> uncore_s_at_hz() const;

 private:
  struct Impl;
  explicit ControllerHost(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace rubato
