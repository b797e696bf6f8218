// The per-run report (docs/design.md "Reports and traces"): one JSON document per process run,
// versioned. Written by the OMPT tool, the TBB observer and the simulator;
// read by `rubato compare` / `rubato report`.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rubato/core/tempo/engine.hpp"

namespace rubato {

inline constexpr int kReportSchemaVersion = 1;

// An energy figure always carries where it came from (docs/design.md "Honesty rules"):
// "measured:rapl", "measured:likwid", "modeled:<profile>", "simulated:<profile>".
struct EnergyFigure {
  bool available = false;
  double joules = 0;
  std::string source;   // as above; empty when unavailable
  std::string why_not;  // when unavailable
};

struct WorkerReport {
  WorkerId id = 0;
  int core = -1;  // bound core, -1 when unbound
  DomainId domain = 0;
  std::uint64_t tasks_completed = 0;
  std::uint64_t segments = 0;
  std::uint64_t pushes = 0;
  std::uint64_t pops = 0;
  std::uint64_t steals = 0;
  std::uint64_t stolen_from = 0;
  std::uint64_t idles = 0;
  std::uint64_t max_depth = 0;
  double mean_depth = 0;
  std::vector<double> busy_s_at_level;  // index = tempo level; includes emulated_delay_s
  double busy_s = 0;
  double alive_s = 0;  // first to last event
  std::uint64_t level_changes = 0;
  double emulated_delay_s = 0;  // extra time the emulator burned (part of busy_s, busy_s_at_level)
  double throttled_s = 0;       // time parked by a throttling controller
  // Waiting for work, whatever the policy: from the moment the
  // worker may wait (out of work, a barrier, between regions) to its next
  // task or serial code. With slack: the part spent lowered to the slowest
  // level, the wake-ups that found it lowered, and the time their raises took
  // to land (the profile's transition latency each, with the emulator).
  double wait_s = 0;
  double wait_slowed_s = 0;
  std::uint64_t slowed_wakeups = 0;
  double raise_delay_s = 0;       // summed over slowed_wakeups
  std::uint64_t guard_holds = 0;  // slowing decisions the cost guard kept back
  // guarded: raised by the sweep as the only worker running while others waited.
  std::uint64_t critical_raises = 0;
};

struct DomainReport {
  DomainId id = 0;
  std::vector<WorkerId> workers;
  std::vector<int> cpus;
  std::uint64_t transitions = 0;          // requested by the engine
  std::uint64_t applied_transitions = 0;  // carried out by the back-end (after rate limiting)
  std::uint64_t conflicts = 0;
};

struct ThrottleEvent {
  double t_s = 0;  // since run start
  WorkerId worker = 0;
  bool parked = false;  // true: parked, false: resumed
  std::string reason;
};

// A thread (or a --mix program) moved to another core by the affinity controller.
struct MigrationEvent {
  double t_s = 0;  // since run start
  WorkerId worker = 0;
  int from_cpu = -1;
  int to_cpu = -1;
  std::string reason;
};

// min-energy: one decision of its controller (rubato/core/min_energy/
// min_energy_controller.hpp), in force from t_s until the next one.
struct FrequencyPairEvent {
  double t_s = 0;  // since run start
  // The work's sensitivities it decided with, and where each came from:
  // "counters" | "settings" | "profile".
  double core_sensitivity = 0;
  double uncore_sensitivity = 0;
  std::string core_sensitivity_source;
  std::string uncore_sensitivity_source;
  std::optional<double> transaction_rate_per_s;  // counters: the memory-transaction rate b_u came from
  int working = 0;
  int waiting = 0;
  int core_level = 0;  // the ceiling, a tempo level (frequencies_hz)
  double core_hz = 0;
  int uncore_level = 0;     // of the uncore lever's ladder
  double uncore_hz = 0;     // 0: no uncore lever
  double time_factor = 1;   // modelled time against the fastest pair
  double energy_ratio = 1;  // modelled energy against the fastest pair
  std::string model;        // what the two ratios come from: "modeled:<profile>"
  std::string reason;
};

// min-energy's closed loop (rubato/core/min_energy/learner.hpp): one setting
// it measured, and whether it kept it.
struct LearningProbe {
  double t_s = 0;           // when the verdict came
  std::uint64_t phase = 0;  // the learner's phase (a set of task types)
  std::string lever;        // "uncore" (for the mix) | "core" (for `type`, or the mix where type is 0)
  int level = 0;            // on that lever's ladder
  std::uint32_t type = 0;
  double time_factor = 1;  // measured: segment time against the fastest pair's
  double time_factor_se = 0;
  double energy_ratio = 1;    // energy per reference work against the fastest pair's
  std::string energy_source;  // "measured:<meter>" | "modeled:<profile>"
  std::uint64_t segments = 0;
  bool kept = false;
  std::string why;
};

// What the closed loop learnt of one task type.
struct LearnedType {
  std::uint32_t type = 0;
  std::string name;              // the front-end's name for it (its code), "" where none
  std::uint64_t segments = 0;    // measured in all
  double reference_ns = 0;       // mean segment at the fastest pair; 0: never measured there
  double core_sensitivity = -1;  // implied by its measured time factors (the model's b_c, b_u); -1: not learnt
  double uncore_sensitivity = -1;
  int core_level = 0;  // the ceiling it ended with
  std::string source;  // what it was learnt from
};

struct Report {
  int schema_version = kReportSchemaVersion;
  std::string tool_version;
  std::string host;
  std::optional<int> rank;  // MPI / Slurm
  std::int64_t pid = 0;
  std::string started_at;  // ISO 8601 UTC
  std::string command;     // the program's command line when known
  // How the run ended: "exit" (the session finished normally:
  // the program exited or its runtime shut down) or "signal SIGTERM" (the
  // report was written when that signal arrived, before the program's own
  // handler or the default action: the run may have been cut short). Empty
  // in reports of older versions. An added optional field: no schema bump,
  // older readers ignore it.
  std::string ended;
  // Set by `rubato run`: what was measured as the user named it (program and
  // arguments before {workers} substitution) and the trial number (0-based)
  // within its series; `rubato compare` groups by the first and drops the
  // first --skip trials by the second.
  std::string workload;
  std::optional<int> trial;
  std::string runtime;   // "libomp 16", "oneTBB 2021.8", "simulator"
  std::string frontend;  // "ompt", "tbb", "tbb-preload", "sim"
  bool steals_observed = true;
  std::string backend;                            // sysfs | likwid | emulated | dry-run | simulated
  std::string backend_note;                       // why this back-end (and why not better ones)
  std::string profile;                            // machine profile name
  std::string policy;                             // canonical, e.g. "hermes+efs"
  std::map<std::string, std::string> parameters;  // policy parameters as text
  std::vector<double> frequencies_hz;             // tempo levels in use
  std::string binding = "none";
  int workers_requested = 0;
  double wall_s = 0;
  EnergyFigure energy;
  std::vector<WorkerReport> workers;
  std::vector<DomainReport> domains;
  std::vector<ThrottleEvent> throttle_events;
  std::vector<MigrationEvent> migrations;
  std::vector<FrequencyPairEvent> frequency_pairs;  // min-energy's decisions; an added field, absent from older reports
  std::vector<LearningProbe> learning_probes;       // min-energy's closed loop; added fields, absent from older reports
  std::vector<LearnedType> learned_types;
  std::uint64_t dropped_events = 0;
  std::uint64_t tool_errors = 0;
  std::vector<std::string> notes;  // degradations, warnings the run produced
  // Figures merged from outside tools (e.g. likwid-perfctr), name -> value.
  std::map<std::string, double> external;
  // How the program ended, as a shell reports it: exit()'s status (0..255),
  // or 128 + N for death by signal N. Written where it is known — at exit
  // (glibc's on_exit tells the front-end), at a termination signal whose
  // default action follows the report, and by `rubato run` from the process's
  // wait status; left out otherwise (the program's own handler decides, the
  // runtime shut down before exit, a linked observer ended inside the
  // program), never guessed. (Older versions wrote 0 outside `rubato run`.)
  std::optional<int> exit_status;
};

// Fills per-worker and per-domain figures from the engine's snapshot.
void fill_from_engine(Report& r, const Engine& engine);

std::string to_json(const Report& r, bool pretty = true);

// Parses a report. On failure returns nullopt and sets `error` to a message
// with the byte offset ("offset 123: ...").
std::optional<Report> report_from_json(std::string_view text, std::string& error);

// Replaces %p (pid), %h (host), %r (rank, or 0) in a report or trace path.
std::string expand_path_pattern(std::string_view pattern, std::int64_t pid, std::string_view host,
                                std::optional<int> rank);

}  // namespace rubato
