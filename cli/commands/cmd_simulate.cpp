// `rubato simulate`: runs a synthetic DAG or a recorded task trace on a
// modelled machine (docs/design.md "Simulator") and writes the same report a real run writes.
// --workers, --policy (comma lists or repeated) and --freqs (repeated) sweep:
// one report per combination and trial.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands/args.hpp"
#include "commands/commands.hpp"
#include "rubato/core/config/policy.hpp"
#include "rubato/core/io/report.hpp"
#include "rubato/core/tempo/tempo_ladder.hpp"
#include "rubato/core/io/trace.hpp"
#include "rubato/core/model/frequency_pair.hpp"
#include "rubato/core/model/work_sensitivity.hpp"
#include "rubato/power/machine/profile.hpp"
#include "rubato/power/session/slack_setup.hpp"
#include "rubato/sim/dag_spec.hpp"
#include "rubato/sim/efs_contention.hpp"
#include "rubato/sim/sim_report.hpp"
#include "rubato/sim/simulator.hpp"
#include "rubato/sim/synthetic.hpp"
#include "rubato/sim/trace_replay.hpp"

namespace rubato::cli {

namespace {

// The plant (the truth the run is graded on), what the controllers may read
// of it, and how min-energy uses what it reads.
std::vector<OptionSpec> plant_options() {
  return {
      {"min-energy-loop", kHowToMeasure, "min-energy (eco): learn from measured durations, or act on the shares", "L",
       "closed", "closed (probe and keep what the durations show) | open (the model's choice from the shares)"},
      {"plant", kHowToMeasure, "the machine's truth: its power law, knee and counter relation", "PROFILE",
       "the --profile (the plant obeys the controllers' model)",
       "a name from power/profiles or a JSON file; the policies still believe --profile"},
      {"plant-uncore-exponent", kHowToMeasure, "the plant stretches uncore-bound work by g(fu)^G", "G", "1",
       "a number 0.1..5 (1: the model's own form)"},
      {"counters", kHowToMeasure, "what the memory-transaction counters read of the plant", "SPEC", "exact",
       "exact | none | bias=F | noise=F | bias=F:noise=F (F a number; noise relative, per interval)"},
      {"meter", kHowToMeasure, "an energy meter (RAPL) over the plant", "SPEC", "rapl",
       "rapl | none | rapl:noise=F (relative, per reading)"},
  };
}

}  // namespace

const CommandSpec& simulate_spec() {
  static const CommandSpec spec{
      "simulate",
      "run a synthetic DAG or a task trace on a modelled machine; same report as a real run",
      "",
      "",
      with(
          {
              {"profile", kWhatToRun, "the modelled machine", "NAME", "",
               "a name from power/profiles or a JSON file (required)"},
              {"workers", kWhatToRun, "worker counts to simulate", "N[,N...]", "",
               "integers up to the profile's cores (required)", true},
              {"dag", kWhatToRun, "a synthetic task graph", "SPEC", "",
               "e.g. fib:25 or a PBBS preset (sim/README.md; this or --trace)"},
              {"trace", kWhatToRun, "replay a RUBATO_TRACE file", "FILE", "", "a trace file (this or --dag)"},
              {"policy", kWhatToRun, "policies to simulate", "P[,P...]", "",
               std::string(kPolicyAccepted) + " (required)", true},
              {"seed", kWhatToRun, "random seed of the first trial", "S", "1", "0..2^62"},
              {"trials", kWhatToRun, "trials per policy x worker count (seeds S, S+1, ...)", "T", "1", "1..100000"},
              {"cores", kWhatToRun, "override the profile's core count", "N", "the profile's", "1..65536"},
              {"freqs", kHowToMeasure, "the frequency ladder", "LIST",
               "eco / min-energy: the profile's levels, thinned to 8; others: fastest,~0.6*fastest",
               "frequencies, e.g. 1.2GHz,2.4GHz", true},
              {"model", kHowToMeasure, "the scheduler modelled", "M", "cilk",
               "cilk (work-first, continuation stealing) | omp (child stealing, tied tasks)"},
              {"placement", kHowToMeasure, "where workers sit", "P", "spread", "spread | compact"},
              {"steal-cost", kHowToMeasure, "time one steal takes", "T", "1us", "a time, e.g. 1us, 250ns (>= 1ns)"},
              {"min-dwell", kHowToMeasure, "least time between a domain's frequency changes", "T", "0",
               "a time up to 10s"},
              {"uncore", kHowToMeasure, "pin the uncore: its power and the uncore-sensitive work's time", "FREQ",
               "not set (eco moves it where the profile has an uncore ladder)", "a frequency"},
              {"slack-dwell", kHowToMeasure, "slack: wait before a waiting worker is slowed", "T",
               "10 transition latencies, at least 1ms", "a time 10us..10s"},
              {"beta", kHowToMeasure, "the workload's frequency sensitivity (time ~ f^-beta)", "B", "the profile's",
               "0..1"},
              {"core-sensitivity", kHowToMeasure, "b_c: share of the work's time that scales with the core clock", "B",
               "the profile's beta", "0..1 (as --beta; phases' beta= override it)"},
              {"uncore-sensitivity", kHowToMeasure, "b_u: share of the work's time moving data through the uncore", "B",
               "0", "0..1, with b_c + b_u <= 1 (phases' uncore= override it)"},
              {"max-time-loss", kHowToMeasure, "min-energy (eco): the most time its core + uncore choice may add", "F",
               "0.05", "a fraction 0..1 (0.05: 5 %)"},
              {"thresholds", kHowToMeasure, "HERMES workload thresholds K ([HERMES] §3.2)", "K", "2", "1..8"},
              {"profile-window", kHowToMeasure, "depth samples per profiling period M", "M", "16", "1..2^20"},
              {"sample-interval", kHowToMeasure, "one depth sample per worker per T", "T", "100us", "a time >= 1ns"},
              {"contention", kHowToMeasure, "memory-contention model", "C", "efs (when the profile has one)",
               "efs ([EFS] Eqs. 10-11) | none"},
              {"control-interval", kHowToMeasure, "efs controller's and eco's core + uncore decision's period", "T",
               "10ms", "a time >= 1us"},
              {"throttle", kHowToMeasure, "how efs stops a thread", "HOW", "preempt",
               "preempt (at once) | task (at the next task scheduling point)"},
              {"out", kWhereResultsGo, "one report file, or a directory of reports (rubato compare reads it)",
               "FILE|DIR", "standard output (a summary)", "a path", false, 'o'},
              {"quiet", kOutputFormat, "no summary on standard output", "", "", ""},
          },
          plant_options()),
      "Every figure is simulated on the modelled machine (the report says so); sim/README.md.",
  };
  return spec;
}

namespace {

namespace fs = std::filesystem;

struct SimulateOptions {
  MachineProfile profile;
  std::vector<std::size_t> workers;
  std::vector<PolicySpec> policies;
  std::vector<std::vector<double>> ladders;  // one per --freqs; none: each policy's default (run_ladder)
  std::optional<sim::DagSpec> dag;
  std::string trace_path;
  std::uint64_t seed = 1;
  int trials = 1;
  std::string out;
  sim::SpawnModel model = sim::SpawnModel::cilk;
  bool model_given = false;
  sim::Placement placement = sim::Placement::spread;
  double steal_cost_s = 1e-6;
  double min_dwell_s = 0;
  double uncore_hz = 0;           // --uncore: pinned uncore frequency, charged at the profile's uncore_power
  double uncore_sensitivity = 0;  // --uncore-sensitivity: b_u of work that does not say
  // The shares given on the command line: min-energy's settings (its
  // RUBATO_CORE_SENSITIVITY / RUBATO_UNCORE_SENSITIVITY live).
  std::optional<double> given_core, given_uncore;
  double max_time_loss = kDefaultMaxTimeLoss;
  bool closed_loop = true;     // --min-energy-loop
  sim::PlantOptions plant;     // --plant, --plant-uncore-exponent
  sim::SensorOptions sensors;  // --counters, --meter
  double slack_dwell_s = -1;   // --slack-dwell; <0: the profile's default (rubato/power/session/slack_setup.hpp)
  int thresholds = 2;
  std::uint32_t profile_window = 16;
  double sample_interval_s = 1e-4;
  bool contention = false;  // tasks with solo= / bus= contend through the EFS model ([EFS] Eqs. 10-11)
  double control_interval_s = 0.01;
  sim::ThrottleMode throttle = sim::ThrottleMode::preempt;
  std::vector<std::string> notes;  // profile adjustments, for every report
  std::string extra_args;          // non-default model options, for the recorded command
  bool quiet = false;
};

// "1us", "250ns", "1.5ms", "2s" or a bare number of seconds.
double parse_seconds(const std::string& option, const std::string& text, double hi) {
  std::size_t unit_at = 0;
  while (unit_at < text.size() && (std::isdigit(static_cast<unsigned char>(text[unit_at])) || text[unit_at] == '.' ||
                                   text[unit_at] == 'e' || text[unit_at] == '-' || text[unit_at] == '+'))
    ++unit_at;
  const std::string unit = text.substr(unit_at);
  double scale = 1;
  if (unit == "ns") scale = 1e-9;
  else if (unit == "us") scale = 1e-6;
  else if (unit == "ms") scale = 1e-3;
  else if (unit == "s" || unit.empty()) scale = 1;
  else throw UsageError(option + " '" + text + "': expected a time such as 1us, 250ns, 1.5ms or 0.002 (seconds)");
  return parse_number(option, text.substr(0, unit_at), 0, hi / scale) * scale;
}

// An optional time option in [lo, hi] seconds, recorded in `extra_args` when given.
void time_option(const Args& a, const std::string& name, double lo, const std::string& lo_text, double hi,
                 double& value, std::string& extra_args) {
  const auto text = a.value(name);
  if (!text) return;
  value = parse_seconds("--" + name, *text, hi);
  if (!(value >= lo)) throw UsageError("--" + name + " must be at least " + lo_text);
  extra_args += " --" + name + " " + *text;
}

// --beta / --core-sensitivity (the profile's default b_c) and --uncore-sensitivity (b_u).
void read_sensitivity(const Args& a, SimulateOptions& o) {
  const auto beta = a.value("beta");
  const auto core = a.value("core-sensitivity");
  if (beta && core) throw UsageError("give --beta or --core-sensitivity, not both (they are the same share, b_c)");
  if (beta || core) {
    const std::string name = beta ? "--beta" : "--core-sensitivity";
    const std::string& value = beta ? *beta : *core;
    o.profile.beta = parse_number(name, value, 0, 1);
    o.given_core = o.profile.beta;
    o.notes.push_back("default beta set to " + value + " (" + name + ")");
    o.extra_args += " " + name + " " + value;
  }
  if (const auto u = a.value("uncore-sensitivity")) {
    o.uncore_sensitivity = parse_number("--uncore-sensitivity", *u, 0, 1);
    o.given_uncore = o.uncore_sensitivity;
    o.extra_args += " --uncore-sensitivity " + *u;
  }
  if (const std::string error = sensitivity_error({o.profile.beta, o.uncore_sensitivity}); !error.empty())
    throw UsageError("--uncore-sensitivity with " + std::string(beta || core ? "the given" : "the profile's") +
                     " core sensitivity: " + error + " (set --core-sensitivity too)");
}

// --profile, adjusted by --cores, --beta and the sensitivities.
void read_profile(const Args& a, SimulateOptions& o) {
  const auto profile_name = a.value("profile");
  if (!profile_name) throw UsageError("--profile is required (a name from power/profiles, or a JSON file)");
  std::string error;
  auto profile = load_profile(*profile_name, error);
  if (!profile) throw UsageError("--profile " + *profile_name + ": " + error);
  o.profile = std::move(*profile);
  if (const auto cores = a.value("cores")) {
    o.profile.cores = static_cast<int>(parse_integer("--cores", *cores, 1, 1 << 16));
    o.notes.push_back("profile '" + o.profile.name + "' scaled to " + *cores + " cores (--cores)");
    o.extra_args += " --cores " + *cores;
  }
  read_sensitivity(a, o);
}

// "key=value" items of a sensor spec after its mode, separated by ':'.
std::vector<std::pair<std::string, std::string>> spec_items(const std::string& option, const std::string& text,
                                                            std::size_t from) {
  std::vector<std::pair<std::string, std::string>> items;
  while (from < text.size()) {
    const std::size_t end = std::min(text.find(':', from), text.size());
    const std::string item = text.substr(from, end - from);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) throw UsageError(option + " '" + text + "': expected key=value, got '" + item + "'");
    items.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    from = end + 1;
  }
  return items;
}

// --plant, --plant-uncore-exponent, --counters and --meter: the truth and
// what the controllers may read of it (simulator.hpp, PlantOptions / SensorOptions).
void read_plant(const Args& a, SimulateOptions& o) {
  if (const auto l = a.value("min-energy-loop")) {
    if (*l == "open") o.closed_loop = false;
    else if (*l != "closed") throw UsageError("--min-energy-loop " + *l + ": expected closed or open");
    o.extra_args += " --min-energy-loop " + *l;
  }
  if (const auto p = a.value("plant")) {
    std::string error;
    auto plant = load_profile(*p, error);
    if (!plant) throw UsageError("--plant " + *p + ": " + error);
    o.plant.profile = std::move(*plant);
    o.extra_args += " --plant " + *p;
  }
  if (const auto g = a.value("plant-uncore-exponent")) {
    o.plant.uncore_time_exponent = parse_number("--plant-uncore-exponent", *g, 0.1, 5);
    o.extra_args += " --plant-uncore-exponent " + *g;
  }
  if (const auto c = a.value("counters")) {
    const std::string& t = *c;
    if (t == "none") {
      o.sensors.counters = false;
    } else if (t != "exact") {
      for (const auto& [key, value] : spec_items("--counters", t, 0)) {
        if (key == "bias") o.sensors.counter_bias = parse_number("--counters bias", value, 0, 100);
        else if (key == "noise") o.sensors.counter_noise = parse_number("--counters noise", value, 0, 10);
        else
          throw UsageError("--counters " + t + ": unknown key '" + key + "' (accepted: exact, none, bias=F, noise=F)");
      }
    }
    o.extra_args += " --counters " + t;
  }
  if (const auto m = a.value("meter")) {
    const std::string& t = *m;
    if (t == "none") {
      o.sensors.meter = false;
    } else if (t.rfind("rapl", 0) == 0 && (t.size() == 4 || t[4] == ':')) {
      for (const auto& [key, value] : spec_items("--meter", t, 5)) {
        if (key == "noise") o.sensors.meter_noise = parse_number("--meter noise", value, 0, 10);
        else throw UsageError("--meter " + t + ": unknown key '" + key + "' (accepted: rapl, none, rapl:noise=F)");
      }
    } else {
      throw UsageError("--meter " + t + ": expected rapl, none or rapl:noise=F");
    }
    o.extra_args += " --meter " + t;
  }
}

// What the sweep compares: --workers, --policy and --freqs.
void read_sweep(const Args& a, SimulateOptions& o) {
  std::string error;
  for (const std::string& w : a.list_values("workers"))
    o.workers.push_back(static_cast<std::size_t>(parse_integer("--workers", w, 1, 1 << 16)));
  if (o.workers.empty()) throw UsageError("--workers is required (e.g. --workers 2,4,8,16)");
  for (std::size_t w : o.workers)
    if (w > static_cast<std::size_t>(o.profile.cores))
      throw UsageError("--workers " + std::to_string(w) + ": profile '" + o.profile.name + "' has " +
                       std::to_string(o.profile.cores) +
                       " cores (--cores N scales it; oversubscription is not simulated)");

  for (const std::string& p : a.list_values("policy")) {
    auto spec = parse_policy(p, error);
    if (!spec) throw UsageError("--policy " + p + ": " + error + " (accepted: " + std::string(kPolicyAccepted) + ")");
    if (spec->affinity)
      throw UsageError("--policy " + p + ": affinity needs cache and placement models the simulator does not have");
    if (spec->efs && !(o.profile.memory_accesses_per_s > 0 && !o.profile.active_cores_power_w.empty()))
      throw UsageError("--policy " + p +
                       ": efs needs memory_accesses_per_s and active_cores_power_w in the profile; '" + o.profile.name +
                       "' lacks them (i5-2500 has both)");
    o.policies.push_back(*spec);
  }
  if (o.policies.empty()) throw UsageError("--policy is required (e.g. --policy baseline,hermes)");

  for (const std::string& f : a.values("freqs")) {
    std::vector<double> hz;
    if (!parse_frequency_list(f, hz, error)) throw UsageError("--freqs " + f + ": " + error);
    o.ladders.push_back(std::move(hz));
  }
}

// --dag or --trace; then trials and where the reports go.
void read_workload(const Args& a, SimulateOptions& o) {
  std::string error;
  const auto dag = a.value("dag");
  const auto trace = a.value("trace");
  if (dag.has_value() == trace.has_value()) throw UsageError("give exactly one of --dag SPEC and --trace FILE");
  if (dag) {
    o.dag = sim::parse_dag_spec(*dag, error);
    if (!o.dag) throw UsageError("--dag: " + error);
  } else {
    o.trace_path = *trace;
    o.model = sim::SpawnModel::omp;  // traces come from OpenMP runs
  }

  o.seed = static_cast<std::uint64_t>(parse_integer("--seed", a.value_or("seed", "1"), 0, 1LL << 62));
  o.trials = static_cast<int>(parse_integer("--trials", a.value_or("trials", "1"), 1, 100000));
  o.out = a.value_or("out", "");
}

// The modelled machine: spawn model, placement, costs and dwell times, uncore.
void read_machine_options(const Args& a, SimulateOptions& o) {
  if (const auto m = a.value("model")) {
    if (*m == "cilk") o.model = sim::SpawnModel::cilk;
    else if (*m == "omp") o.model = sim::SpawnModel::omp;
    else
      throw UsageError("--model " + *m +
                       ": expected cilk (work-first, continuation stealing) or omp (child stealing, tied tasks)");
    o.model_given = true;
  }
  if (const auto p = a.value("placement")) {
    const auto placement = sim::parse_placement(*p);
    if (!placement) throw UsageError("--placement " + *p + ": expected spread or compact");
    o.placement = *placement;
    o.extra_args += " --placement " + *p;
  }
  time_option(a, "steal-cost", 1e-9, "1ns", 1, o.steal_cost_s, o.extra_args);
  if (const auto d = a.value("min-dwell")) {
    o.min_dwell_s = parse_seconds("--min-dwell", *d, 10);
    o.extra_args += " --min-dwell " + *d;
  }
  if (const auto d = a.value("slack-dwell")) {
    o.slack_dwell_s = parse_seconds("--slack-dwell", *d, 10);
    if (!(o.slack_dwell_s >= 1e-5)) throw UsageError("--slack-dwell " + *d + ": expected a duration 10us..10s");
    o.extra_args += " --slack-dwell " + *d;
  }
  if (const auto u = a.value("uncore")) {
    std::string why;
    if (!parse_frequency(*u, o.uncore_hz, why)) throw UsageError("--uncore " + *u + ": " + why);
    if (o.profile.uncore_power.empty())
      o.notes.push_back("--uncore " + *u + ": profile " + o.profile.name +
                        " gives no uncore_power table; the uncore is charged its constant uncore_w");
    o.extra_args += " --uncore " + *u;
  }
}

// The engine and the controllers: thresholds, sampling, contention, throttling.
void read_control_options(const Args& a, SimulateOptions& o) {
  if (const auto k = a.value("thresholds")) {
    o.thresholds = static_cast<int>(parse_integer("--thresholds", *k, 1, kMaxThresholds));
    o.extra_args += " --thresholds " + *k;
  }
  if (const auto m = a.value("profile-window")) {
    o.profile_window = static_cast<std::uint32_t>(parse_integer("--profile-window", *m, 1, 1 << 20));
    o.extra_args += " --profile-window " + *m;
  }
  time_option(a, "sample-interval", 1e-9, "1ns", 10, o.sample_interval_s, o.extra_args);
  if (o.dag)
    for (const sim::PhaseSpec& ph : o.dag->phases) o.contention = o.contention || ph.bus > 0;
  if (const auto c = a.value("contention")) {
    if (*c == "efs") o.contention = true;
    else if (*c == "none") o.contention = false;
    else throw UsageError("--contention " + *c + ": expected efs ([EFS] Eqs. 10-11) or none");
    o.extra_args += " --contention " + *c;
  }
  time_option(a, "control-interval", 1e-6, "1us", 10, o.control_interval_s, o.extra_args);
  if (const auto m = a.value("max-time-loss")) {
    o.max_time_loss = parse_number("--max-time-loss", *m, 0, 1);
    o.extra_args += " --max-time-loss " + *m;
  }
  if (const auto t = a.value("throttle")) {
    if (*t == "preempt") o.throttle = sim::ThrottleMode::preempt;
    else if (*t == "task") o.throttle = sim::ThrottleMode::task;
    else
      throw UsageError("--throttle " + *t +
                       ": expected preempt (stop at once) or task (at the next task scheduling point)");
    o.extra_args += " --throttle " + *t;
  }
}

SimulateOptions setup(const std::vector<std::string>& argv) {
  Args a(argv, simulate_spec());
  if (!a.positionals().empty()) throw UsageError("unexpected argument '" + a.positionals().front() + "'");
  SimulateOptions o;
  o.quiet = a.flag("quiet");
  read_profile(a, o);
  read_plant(a, o);
  read_sweep(a, o);
  read_workload(a, o);
  read_machine_options(a, o);
  read_control_options(a, o);
  if (o.model_given) o.extra_args += std::string(" --model ") + sim::to_string(o.model);
  return o;
}

std::string ladder_text(const std::vector<double>& hz) {
  std::string s;
  for (double f : hz) s += (s.empty() ? "" : ",") + format_frequency(f);
  return s;
}

std::string quoted(const std::string& s) {
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && std::string("-_.,:=/+").find(c) == std::string::npos)
      return "'" + s + "'";
  return s;
}

std::string file_safe(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '+' && c != '_') c = '-';
  return s;
}

struct Combination {
  std::size_t ladder = 0;
  std::size_t workers = 0;
  PolicySpec policy;
  int trial = 0;
};

// The program to simulate (a synthetic DAG or a recorded trace) and how the
// recorded command names it.
struct SimInput {
  sim::Program program;
  std::string workload_input;
  std::vector<std::string> notes;
};

SimInput load_input(const SimulateOptions& o, double f_ref) {
  SimInput in;
  // Work that does not say is the plant's: its β unless the command line gave b_c.
  const double beta = o.plant.profile && !o.given_core ? o.plant.profile->beta : o.profile.beta;
  if (o.dag) {
    try {
      in.program = sim::build_synthetic(*o.dag, f_ref, WorkSensitivity{beta, o.uncore_sensitivity});
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--dag: ") + e.what());
    }
    in.workload_input = "--dag " + quoted(o.dag->text);
  } else {
    std::string error;
    const auto trace = read_trace(o.trace_path, error);
    if (!trace) throw std::runtime_error("--trace " + o.trace_path + ": " + error);
    in.program = sim::build_trace_program(*trace, WorkSensitivity{beta, o.uncore_sensitivity}, in.notes);
    in.program.description = o.trace_path;
    in.workload_input = "--trace " + quoted(o.trace_path);
  }
  return in;
}

// A run's ladder: its --freqs, else its policy's default over the profile's
// levels (the live session's choice: TempoLadder::default_for).
std::vector<double> run_ladder(const SimulateOptions& o, const Combination& c) {
  if (!o.ladders.empty()) return o.ladders[c.ladder];
  return TempoLadder::default_for(c.policy.min_energy, o.profile.frequencies_hz).frequencies_hz();
}

std::vector<Combination> plan_runs(const SimulateOptions& o) {
  std::vector<Combination> runs;
  for (std::size_t l = 0; l < std::max<std::size_t>(o.ladders.size(), 1); ++l)
    for (std::size_t w : o.workers)
      for (const PolicySpec& p : o.policies)
        for (int t = 0; t < o.trials; ++t) runs.push_back({l, w, p, t});
  return runs;
}

// Whether --out is a directory (one report per run), created if need be.
bool prepare_out(const SimulateOptions& o, std::size_t runs) {
  if (o.out.empty()) {
    if (runs > 1) throw UsageError(std::to_string(runs) + " runs: give --out DIR for their reports");
    return false;
  }
  std::error_code ec;
  const bool to_dir = runs > 1 || o.out.back() == '/' || fs::is_directory(o.out, ec);
  if (to_dir) {
    fs::create_directories(o.out, ec);
    if (ec) throw std::runtime_error("--out " + o.out + ": " + ec.message());
  }
  return to_dir;
}

sim::SimOptions sim_options(const SimulateOptions& o, const Combination& c, const sim::EfsContention& efs_contention) {
  sim::SimOptions so;
  so.profile = o.profile;
  so.workers = c.workers;
  so.engine.policy = c.policy;
  so.engine.ladder = TempoLadder(run_ladder(o, c));
  so.engine.thresholds = o.thresholds;
  so.engine.profile_window = o.profile_window;
  so.engine.sample_interval_ns = static_cast<std::uint64_t>(o.sample_interval_s * 1e9);
  so.model = o.model;
  so.placement = o.placement;
  so.seed = o.seed + static_cast<std::uint64_t>(c.trial);
  so.steal_cost_s = o.steal_cost_s;
  so.min_dwell_s = o.min_dwell_s;
  so.uncore_hz = o.uncore_hz;
  so.engine.slack_dwell_ns =
      static_cast<std::uint64_t>((o.slack_dwell_s > 0 ? o.slack_dwell_s : slack_dwell_default_s(&o.profile)) * 1e9);
  if (o.contention) so.contention = &efs_contention;
  so.control_interval_s = o.control_interval_s;
  so.throttle = o.throttle;
  so.min_energy.max_time_loss = o.max_time_loss;
  so.min_energy.core_sensitivity = o.given_core;
  so.min_energy.uncore_sensitivity = o.given_uncore;
  so.min_energy.closed_loop = o.closed_loop;
  so.plant = o.plant;
  so.sensors = o.sensors;
  return so;
}

// Writes one run's report to stdout, the --out file or a file in the --out
// directory; returns where it went.
std::string write_report(const SimulateOptions& o, const Combination& c, const std::string& freqs,
                         const std::string& json, bool to_dir) {
  if (o.out.empty()) {
    std::fputs(json.c_str(), stdout);
    std::fputc('\n', stdout);
    return "stdout";
  }
  fs::path path = o.out;
  if (to_dir) {
    std::string name = "sim-" + o.profile.name + "-w" + std::to_string(c.workers) + "-" + c.policy.name();
    if (o.ladders.size() > 1) name += "-f" + freqs;
    name += "-t" + std::to_string(c.trial);
    path = fs::path(o.out) / (file_safe(name) + ".json");
  }
  std::ofstream f(path, std::ios::binary);
  f << json << '\n';
  if (!f) throw std::runtime_error("cannot write " + path.string());
  return path.string();
}

}  // namespace

int run_simulate(const std::vector<std::string>& argv) {
  const SimulateOptions o = setup(argv);
  const double f_ref = o.profile.frequencies_hz.empty() ? 0 : o.profile.frequencies_hz.front();
  if (!(f_ref > 0)) throw std::runtime_error("profile '" + o.profile.name + "' lists no frequencies");
  const SimInput in = load_input(o, f_ref);
  const std::vector<Combination> runs = plan_runs(o);
  const bool to_dir = prepare_out(o, runs.size());
  std::FILE* table = o.out.empty() ? stderr : stdout;
  const sim::EfsContention efs_contention;
  if (!o.quiet)
    std::fprintf(table, "%-12s %7s %-24s %6s %12s %12s %9s %8s\n", "policy", "workers", "freqs", "trial", "time_s",
                 "energy_J", "tasks", "steals");

  for (const Combination& c : runs) {
    const sim::SimOptions so = sim_options(o, c, efs_contention);
    sim::Simulation simulation(so, in.program);
    const sim::SimResult& r = simulation.run();

    // Everything but policy, workers and seed defines what is compared (rubato
    // compare's workload); a default ladder is each policy's own, so not part of it.
    const std::string freqs = ladder_text(run_ladder(o, c));
    const std::string workload = "sim " + in.workload_input + " --profile " + o.profile.name +
                                 (o.ladders.empty() ? "" : " --freqs " + freqs) + o.extra_args;
    const std::string command = "rubato simulate --profile " + quoted(o.profile.name) + " --workers " +
                                std::to_string(c.workers) + " " + in.workload_input + " --policy " +
                                quoted(c.policy.name()) + " --seed " + std::to_string(so.seed) + " --freqs " + freqs +
                                o.extra_args;
    Report rep = sim::make_report(simulation, in.program.description, command);
    rep.workload = workload;
    rep.trial = c.trial;
    for (const std::string& n : o.notes) rep.notes.push_back(n);
    for (const std::string& n : in.notes) rep.notes.push_back(n);
    const std::string where = write_report(o, c, freqs, to_json(rep), to_dir);
    std::uint64_t steals = 0;
    for (const auto& w : rep.workers) steals += w.steals;
    if (!o.quiet)
      std::fprintf(table, "%-12s %7zu %-24s %6d %12.6g %12.6g %9llu %8llu  %s\n", c.policy.name().c_str(), c.workers,
                   freqs.c_str(), c.trial, rep.wall_s, rep.energy.joules, static_cast<unsigned long long>(r.tasks),
                   static_cast<unsigned long long>(steals), where.c_str());
  }
  return 0;
}

}  // namespace rubato::cli
