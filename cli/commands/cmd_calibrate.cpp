// `rubato calibrate`: measures this machine's profile (RAPL + cpufreq), or
// with --beta a program's core and uncore sensitivities
// (docs/calibrate.md). The measuring is power/'s (calibration.hpp); this file
// parses options and writes the profile; --beta is cmd_calibrate_beta.cpp.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "commands/args.hpp"
#include "commands/commands.hpp"
#include "commands/cmd_calibrate_beta.hpp"
#include "analysis/file_io.hpp"
#include "experiment/process.hpp"
#include "rubato/core/config/settings.hpp"
#include "rubato/core/tempo/tempo_ladder.hpp"
#include "rubato/power/calibrate/calibration.hpp"
#include "rubato/power/machine/profile.hpp"
#include "rubato/power/session/run_identity.hpp"
#include "rubato/power/machine/topology.hpp"
#include "analysis/stats.hpp"

namespace rubato::cli {

const CommandSpec& calibrate_spec() {
  static const CommandSpec spec{
      "calibrate",
      "measure this machine's profile (RAPL + cpufreq), or with --beta a program's core and uncore sensitivities",
      "",
      "PROGRAM ARGS (with --beta)",
      {
          {"beta", kWhatToRun,
           "time the program after -- at the fastest and slowest core (and, where settable, uncore) frequency: "
           "the shares of its time each clock sets",
           "", "", ""},
          {"cpus", kWhatToRun, "the CPUs to measure", "LIST", "every CPU", "a CPU list, e.g. 0-3,8"},
          {"freqs", kWhatToRun, "the frequencies to measure", "LIST", "5 spread over the ladder",
           "frequencies, e.g. 1.2GHz,2.4GHz", true},
          {"uncore-freqs", kWhatToRun,
           "the uncore levels to measure (power ladder and probe), where intel_uncore_frequency is settable", "LIST",
           "7 spread over the domain's range, 100 MHz aligned", "frequencies, e.g. 2.6GHz,1.8GHz,1.0GHz", true},
          {"uncore-probe", kWhatToRun,
           "time the program after -- at each uncore level instead of the built-in streaming triad (its wall time)", "",
           "", ""},
          {"probe-rounds", kHowToMeasure, "rounds of the uncore probe, each timing every level once", "N", "5",
           "1..1000"},
          {"probe-mib", kHowToMeasure, "the built-in uncore probe's arrays together", "MIB",
           "4 x the last-level cache, 64..1024", "16..65536"},
          {"seconds", kHowToMeasure, "length of each power measurement", "S", "5", "0.05..3600"},
          {"latency-repeats", kHowToMeasure, "transition-latency measurements per frequency pair", "N", "5", "1..1000"},
          {"quiet-limit", kHowToMeasure, "other processes' CPU use above which a point is polluted and measured again",
           "CPUS", "0.1", "0.001..100000"},
          {"quiet-wait", kHowToMeasure, "how long a polluted point waits for the machine to become quiet", "S", "30",
           "0..86400"},
          {"allow-noisy", kWhereResultsGo, "write the profile even where points stayed polluted, marked unreliable", "",
           "", ""},
          {"runs", kHowToMeasure, "--beta: rounds (one run at each setting)", "N", "5", "2..10000"},
          {"timeout", kHowToMeasure, "--beta, --uncore-probe: stop a run after S seconds (0: never)", "S", "0",
           "0..1e6"},
          {"out", kWhereResultsGo, "where the profile (or --beta's result) is written", "FILE",
           "calibrated-HOST.json (--beta: standard output)", "a file path", false, 'o'},
      },
      "Needs root (cpufreq, intel_uncore_frequency and RAPL are written / read); RUBATO_SYSFS_ROOT and\n"
      "RUBATO_STATE_DIR apply. Where the uncore is settable it also measures package power at each uncore\n"
      "level and the time of uncore-bound work (the memory-bandwidth knee; RUBATO_COUNTERS, where they count\n"
      "memory transactions, the saturated rate); what it cannot measure is named in the profile's not_measured.\n"
      "Without RAPL but with a settable uncore it times the uncore only and copies the power figures of\n"
      "RUBATO_PROFILE, saying so. Every frequency change (core and uncore) is recorded first and restored,\n"
      "also after a kill -9 (rubato restore).",
  };
  return spec;
}

namespace {

CalibrateOptions setup(const std::vector<std::string>& argv) {
  Args a(argv, calibrate_spec());
  if (!a.positionals().empty()) throw UsageError("unexpected argument '" + a.positionals().front() + "'");
  CalibrateOptions o;
  o.beta = a.flag("beta");
  o.uncore_probe = a.flag("uncore-probe");
  o.program = a.after_dashdash();
  if (o.beta && o.uncore_probe) throw UsageError("--uncore-probe is for a machine's profile, not --beta");
  if (o.beta && o.program.empty()) throw UsageError("--beta needs a program: rubato calibrate --beta -- PROGRAM ARGS");
  if (o.uncore_probe && o.program.empty())
    throw UsageError("--uncore-probe needs a program: rubato calibrate --uncore-probe -- PROGRAM ARGS");
  if (!o.beta && !o.uncore_probe && !o.program.empty())
    throw UsageError("a program is measured only with --beta or --uncore-probe");
  for (const std::string& f : a.values("uncore-freqs")) {
    std::vector<double> hz;
    std::string error;
    if (!parse_frequency_list(f, hz, error)) throw UsageError("--uncore-freqs " + f + ": " + error);
    o.measure.uncore_hz.insert(o.measure.uncore_hz.end(), hz.begin(), hz.end());
  }
  if (o.beta && !o.measure.uncore_hz.empty()) throw UsageError("--uncore-freqs is for a machine's profile, not --beta");
  o.measure.uncore_asked = o.uncore_probe || !o.measure.uncore_hz.empty();
  if (const auto s = a.value("probe-rounds"))
    o.measure.probe_rounds = static_cast<int>(parse_integer("--probe-rounds", *s, 1, 1000));
  if (const auto s = a.value("probe-mib"))
    o.measure.probe_bytes = static_cast<std::size_t>(parse_integer("--probe-mib", *s, 16, 65536)) << 20;
  if (const auto s = a.value("seconds")) o.measure.seconds = parse_number("--seconds", *s, 0.05, 3600);
  if (const auto s = a.value("quiet-limit")) o.measure.quiet_limit_cpus = parse_number("--quiet-limit", *s, 0.001, 1e5);
  if (const auto s = a.value("quiet-wait")) o.measure.quiet_wait_s = parse_number("--quiet-wait", *s, 0, 86400);
  o.measure.allow_noisy = a.flag("allow-noisy");
  if (o.beta && o.measure.allow_noisy) throw UsageError("--allow-noisy is for a machine's profile, not --beta");
  if (const auto s = a.value("latency-repeats"))
    o.measure.latency_repeats = static_cast<int>(parse_integer("--latency-repeats", *s, 1, 1000));
  if (const auto s = a.value("runs")) o.runs = static_cast<int>(parse_integer("--runs", *s, 2, 10000));
  if (const auto s = a.value("timeout")) o.timeout_s = parse_number("--timeout", *s, 0, 1e6);
  if (const auto s = a.value("cpus"))
    if (!parse_cpu_list(*s, o.measure.cpus) || o.measure.cpus.empty())
      throw UsageError("--cpus " + *s + ": not a CPU list");
  for (const std::string& f : a.values("freqs")) {
    std::vector<double> hz;
    std::string error;
    if (!parse_frequency_list(f, hz, error)) throw UsageError("--freqs " + f + ": " + error);
    o.measure.freqs_hz.insert(o.measure.freqs_hz.end(), hz.begin(), hz.end());
  }
  o.out = a.value_or("out", o.beta ? "" : "calibrated-" + calibration_host() + ".json");
  return o;
}

// "dir/myhost.json" -> "dir/myhost" (the samples go to dir/myhost.samples.csv).
std::string stem_path(const std::string& out) {
  const std::filesystem::path p(out);
  return p.extension() == ".json" ? (p.parent_path() / p.stem()).string() : out;
}

// --uncore-probe: one run of the program, its CPU time (< 0 and why when it
// failed). Not its wall time: a neighbour that preempts the program's threads
// inflates the wall time of some runs more than others (the least of six
// rounds at 1.3 GHz came out 2.96 of the fastest where the law says 1.89, the
// machine's two CPUs shared with two spinners); memory stalls, the uncore's
// share, are CPU time, waiting to run is not.
ProbeTiming probe_program(const CalibrateOptions& o) {
  return [program = o.program, timeout = o.timeout_s](std::string& why) {
    const ChildResult c = run_child(program, {}, "/dev/null", "/dev/null", timeout);
    if (c.started && c.exit_status == 0 && !c.timed_out && !c.interrupted) return c.cpu_s > 0 ? c.cpu_s : c.elapsed_s;
    why = !c.started      ? c.error
          : c.interrupted ? std::string("interrupted")
          : c.timed_out   ? std::string("the program timed out (--timeout)")
                          : "the program failed (exit status " + std::to_string(c.exit_status) + ")";
    return -1.0;
  };
}

// The lines a user reads about the uncore: the ladder, the knee, the rate.
void print_uncore(const MachineProfile& p, const CalibrationResult& r) {
  for (const auto& u : r.uncore_ladder)
    std::printf("uncore %6.0f MHz  idle %9.3f W (±%.3f)  loaded - idle %.3f W per busy CPU\n", u.hz / 1e6, u.idle_w,
                u.idle_se_w, u.per_busy_cpu_w);
  if (p.memory_bandwidth_knee_hz)
    std::printf("memory-bandwidth knee %.0f MHz (probe's uncore share %.3f, residual rms %.4f)\n",
                *p.memory_bandwidth_knee_hz / 1e6, r.probe.fit.uncore_share, r.probe.fit.residual_rms);
  if (p.memory_transaction_rate_saturated_per_s)
    std::printf("saturated memory-transaction rate %.4g/s\n", *p.memory_transaction_rate_saturated_per_s);
  for (const auto& [field, why] : p.not_measured) std::printf("not measured: %s: %s\n", field.c_str(), why.c_str());
}

int calibrate_machine(const CalibrateOptions& o) {
  std::string error;
  if (!calibration_possible(o.measure, error)) {
    std::fprintf(stderr, "rubato calibrate: %s\n", error.c_str());
    return 1;
  }
  CalibrationOptions m = o.measure;
  m.progress = [](const std::string& line) { std::fprintf(stderr, "rubato calibrate: %s\n", line.c_str()); };
  if (o.uncore_probe) {
    // SIGINT / SIGTERM reach the probe program; the restore handlers run
    // first and chain to this forwarding, and calibration stops at the next step.
    install_interrupt_forwarding();
    m.probe_program = probe_program(o);
    m.probe_program_name = o.program.front();
    for (std::size_t i = 1; i < o.program.size(); ++i) m.probe_program_name += " " + o.program[i];
    m.stop_requested = [] { return interrupt_requested(); };
  }
  // Where RAPL is missing, the power figures come from the profile RUBATO_PROFILE selects.
  std::string profile_error;
  const ChosenProfile chosen = resolve_profile(o.profile, profile_search_dirs(o.profile_dir), profile_error);
  if (chosen.profile) {
    m.power_from = chosen.profile;
    m.power_from_name = chosen.name;
  }
  const auto result = calibrate(m, error);
  if (!result) {
    if (!chosen.profile && error.find("RUBATO_PROFILE") != std::string::npos) error += ": " + profile_error;
    std::fprintf(stderr, "rubato calibrate: %s\n", error.c_str());
    return error == "interrupted" ? 128 + std::max(interrupt_signal(), 2) : 1;
  }
  const CalibrationResult& r = *result;
  const std::string name = std::filesystem::path(stem_path(o.out)).filename().string();
  const std::string text = calibration_profile_json(r, name);
  // The profile must load as RUBATO_PROFILE would read it before it is written.
  const auto profile = parse_profile(text, o.out, error);
  if (!profile) {
    std::fprintf(stderr, "rubato calibrate: the measured profile does not load (%s); nothing written\n", error.c_str());
    return 1;
  }
  const std::string samples = stem_path(o.out) + ".samples.csv", transitions = stem_path(o.out) + ".transitions.csv";
  const std::string probe_csv = stem_path(o.out) + ".uncore-probe.csv";
  write_or_throw(o.out, text);
  write_or_throw(samples, calibration_samples_csv(r));
  write_or_throw(transitions, calibration_transitions_csv(r));
  if (!r.probe.runs.empty()) write_or_throw(probe_csv, calibration_uncore_probe_csv(r));

  if (r.measured_power) {
    std::printf("%-12s %12s %12s\n", "frequency", "busy_w/CPU", "idle_w/CPU");
    for (const auto& p : profile->core_power) std::printf("%8.0f MHz %12.3f %12.3f\n", p.hz / 1e6, p.busy_w, p.idle_w);
    std::printf("uncore_w %.3f W (±%.3f)\n", profile->uncore_w, r.fit.intercept_se);
  }
  std::printf("transition latency %.6f s (%s)\n", profile->transition_latency_s, r.latency_method.c_str());
  if (r.has_dram && r.measured_power) std::printf("dram %.3f W\n", nlohmann::json::parse(text).value("dram_w", 0.0));
  print_uncore(*profile, r);
  for (const auto& w : r.warnings) std::fprintf(stderr, "rubato calibrate: warning: %s\n", w.c_str());
  std::printf("wrote %s (samples: %s, %s%s)\nuse it: RUBATO_PROFILE=%s\n", o.out.c_str(), samples.c_str(),
              transitions.c_str(), r.probe.runs.empty() ? "" : (", " + probe_csv).c_str(), o.out.c_str());
  if (!profile->unreliable.empty())
    std::printf("UNRELIABLE (marked in the profile): %s\n", profile->unreliable.c_str());
  return 0;
}

}  // namespace

int run_calibrate(const std::vector<std::string>& argv) {
  CalibrateOptions o = setup(argv);
  Diagnostics diag;
  const Settings settings = load_settings(read_process_environment(), diag);
  for (const auto& line : diag.lines) std::fprintf(stderr, "%s\n", line.c_str());
  o.measure.sysfs_root = settings.sysfs_root;
  o.measure.state_dir = settings.state_dir;
  o.measure.counters = settings.counters;
  o.profile = settings.profile;
  o.profile_dir = settings.profile_dir;
  return o.beta ? measure_sensitivities(o) : calibrate_machine(o);
}

}  // namespace rubato::cli
