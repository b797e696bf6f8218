// `rubato run … -- PROGRAM ARGS`: runs the program once per trial per policy
// per worker count (interleaved), with the rubato tool attached, keeps every
// run's report and exit status under --out, then prints the comparison.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <optional>
#include <set>
#include <thread>

#include "commands/args.hpp"
#include "commands/cmd_run_checks.hpp"
#include "commands/commands.hpp"
#include "render/compare_output.hpp"
#include "analysis/file_io.hpp"
#include "analysis/comparison.hpp"
#include "experiment/launcher.hpp"
#include "experiment/likwid_runner.hpp"
#include "experiment/mix_runner.hpp"
#include "experiment/process.hpp"
#include "experiment/progress.hpp"
#include "rubato/core/config/policy.hpp"
#include "rubato/core/config/settings.hpp"
#include "rubato/power/machine/machine_info.hpp"
#include "rubato/power/session/run_identity.hpp"
#include "experiment/run_harvest.hpp"
#include "experiment/run_index.hpp"
#include "experiment/run_plan.hpp"
#include "analysis/run_records.hpp"
#include "experiment/tool_locator.hpp"
#include "experiment/trial_traces.hpp"

namespace rubato::cli {

const CommandSpec& run_spec() {
  static const CommandSpec spec{
      "run",
      "run a program under each policy, N trials each, with the tool attached; then compare",
      "",
      "PROGRAM ARGS ('{workers}' in ARGS becomes the worker count)",
      {
          {"policies", kWhatToRun, "the policies to run, each --trials times", "LIST",
           "baseline,workpath,workload,hermes (with --mix: baseline,efs)", std::string(kPolicyAccepted)},
          {"trials", kWhatToRun, "runs of each policy x worker count", "N", "20", "1..100000"},
          {"skip", kWhatToRun, "first trials of each series the comparison drops (warm-up); kept in the index", "N",
           "2", "0..trials-1"},
          {"workers", kWhatToRun, "worker counts to run (OMP_NUM_THREADS, RUBATO_WORKERS)", "LIST",
           "this machine's cores", "integers 1..4096, comma-separated"},
          {"mix", kWhatToRun,
           "programs run together instead of -- PROGRAM, stopped / continued by efs, placed by "
           "affinity",
           "\"PROG ARGS; PROG ARGS\"", "", "';'-separated command lines"},
          {"launcher", kWhatToRun, "start each trial through this launcher: a report per rank, merged per node",
           "\"CMD\"", "", "e.g. \"mpirun -np 4\", \"srun -N 2 --ntasks-per-node=2\""},
          {"launcher-kind", kWhatToRun, "how the tool's variables reach the ranks", "KIND", "from --launcher",
           launcher_kind_names()},
          {"timeout", kWhatToRun, "stop a run after S seconds (it counts as failed)", "S", "0 (never)", "0..1e7"},
          {"backend", kHowToMeasure, "RUBATO_BACKEND for every run (one that cannot work here is refused)", "B",
           "the tool's own choice", backend_names()},
          {"profile", kHowToMeasure, "RUBATO_PROFILE for every run (the energy model)", "P", "the tool's own choice",
           "auto, a name from power/profiles or a JSON file"},
          {"likwid", kHowToMeasure, "wrap each run in likwid-perfctr with this group (measured counters)", "GROUP", "",
           "a likwid group, e.g. ENERGY"},
          {"likwid-command", kHowToMeasure, "the likwid-perfctr to run", "CMD", "likwid-perfctr", "a command"},
          {"export-traces", kHowToMeasure,
           "record each trial's task trace (RUBATO_TRACE) and export it beside the trial's report; rubato "
           "report links the exports",
           "LIST", "no trace", export_format_names() + " (comma-separated)"},
          {"tool", kHowToMeasure, "the OMPT tool given to OpenMP programs (OMP_TOOL_LIBRARIES)", "FILE",
           "librubato_ompt.so found beside rubato", "a shared library"},
          {"out", kWhereResultsGo, "results directory (reports, rubato-index.json)", "DIR", "results/YYYYmmdd-HHMMSS",
           "a directory", false, 'o'},
          {"json", kOutputFormat, "the closing comparison as JSON", "", "", ""},
          {"csv", kOutputFormat, "the closing comparison as CSV", "", "", ""},
      },
      "Each run gets RUBATO_POLICY, RUBATO_REPORT and the options above in its environment, over the RUBATO_*\n"
      "variables of rubato's own; a value a run's tool would not accept or could not use here (an unknown\n"
      "back-end, profile or variable) is refused before the first run (exit status 2). rubato compare DIR\n"
      "and rubato report DIR read the results again (with this run's --skip). Interrupted, rubato run exits\n"
      "128 + the signal (130 for SIGINT, 143 for SIGTERM).",
  };
  return spec;
}

namespace {

namespace fs = std::filesystem;

struct RunOptions {
  std::vector<std::string> policies;
  std::vector<int> workers;
  int trials = 20;
  int skip = 2;
  std::string out;
  std::string tool;  // --tool, "" = look next to rubato
  std::string backend, profile;
  std::string likwid_group;
  std::string likwid_command = "likwid-perfctr";
  double timeout_s = 0;
  bool json = false, csv = false;
  std::vector<std::string> program;
  std::string mix;                   // --mix "progA; progB": the programs run together, controlled by rubato itself
  std::optional<Launcher> launcher;  // --launcher "mpirun -np 4": each trial is one launch through it
  TrialTraceExports trace_exports;   // --export-traces otf2,perfetto: each trial's task trace, exported
};

// The current time as strftime `format` says, in UTC or local time.
std::string now_as(const char* format, bool utc) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  if (utc) gmtime_r(&t, &tm);
  else localtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

// --launcher and --launcher-kind, after --mix and --likwid (which exclude it).
void setup_launcher(const Args& a, RunOptions& o) {
  const std::string kind = a.value_or("launcher-kind", "");
  std::optional<LauncherKind> forced;
  if (!kind.empty() && !(forced = launcher_kind_from_name(kind)))
    throw UsageError("--launcher-kind '" + kind + "' is not a launcher kind; accepted: " + launcher_kind_names());
  if (const auto launcher = a.value("launcher")) {
    if (!o.mix.empty()) throw UsageError("--launcher starts one program on every rank; it does not go with --mix");
    if (!o.likwid_group.empty())
      throw UsageError(
          "--likwid wraps one process; with --launcher, put likwid-perfctr (or likwid-mpirun) in the program");
    o.launcher = make_launcher(*launcher, forced);
  } else if (forced) {
    throw UsageError("--launcher-kind goes with --launcher");
  }
}

// --export-traces: the formats, checked now; the exports' power track follows --profile.
void setup_trace_exports(const Args& a, RunOptions& o) {
  const auto list = a.value("export-traces");
  if (!list) return;
  std::string error;
  if (!parse_export_formats(*list, o.trace_exports.formats, error)) throw UsageError(error);
  if (!o.mix.empty())
    throw UsageError("--export-traces exports the tool's task traces; a --mix runs its programs without the tool");
  o.trace_exports.profile = o.profile;
}

RunOptions setup(const std::vector<std::string>& argv) {
  Args a(argv, run_spec());
  if (!a.positionals().empty())
    throw UsageError("unexpected argument '" + a.positionals().front() + "' (the program goes after --)");
  RunOptions o;
  o.program = a.after_dashdash();
  o.mix = a.value_or("mix", "");
  if (!o.mix.empty()) {
    if (!o.program.empty()) throw UsageError("--mix names the programs; nothing goes after --");
    parse_mix(o.mix);  // usage errors now, not at the first run
    o.program = {o.mix};
  }
  if (o.program.empty()) throw UsageError("give the program to run after --");
  const std::string default_policies = o.mix.empty() ? "baseline,workpath,workload,hermes" : "baseline,efs";
  for (const std::string& p : split(a.value_or("policies", default_policies), ',')) {
    std::string error;
    const auto spec = parse_policy(p, error);
    if (!spec) throw UsageError("--policies: '" + p + "': " + error);
    // A mix's programs run without the tool: only rubato's own controllers act on them.
    if (!o.mix.empty() && (spec->changes_tempo() || spec->guarded))
      throw UsageError("--policies: '" + p +
                       "': a --mix runs baseline, efs and affinity only (tempo policies act "
                       "inside a program, through the tool)");
    o.policies.push_back(spec->name());
  }
  o.trials = static_cast<int>(parse_integer("--trials", a.value_or("trials", "20"), 1, 100000));
  o.skip = static_cast<int>(parse_integer("--skip", a.value_or("skip", "2"), 0, 100000));
  if (o.skip >= o.trials)
    throw UsageError("--skip " + std::to_string(o.skip) + " would drop all " + std::to_string(o.trials) + " trials");
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  for (const std::string& w : split(a.value_or("workers", std::to_string(cores)), ','))
    o.workers.push_back(static_cast<int>(parse_integer("--workers", w, 1, 4096)));
  o.out = a.value_or("out", now_as("results/%Y%m%d-%H%M%S", false));
  o.tool = a.value_or("tool", "");
  o.backend = a.value_or("backend", "");
  o.profile = a.value_or("profile", "");
  o.likwid_group = a.value_or("likwid", "");
  if (!o.mix.empty() && !o.likwid_group.empty())
    throw UsageError("--likwid wraps one program; it does not go with --mix");
  o.likwid_command = a.value_or("likwid-command", o.likwid_command);
  o.timeout_s = parse_number("--timeout", a.value_or("timeout", "0"), 0, 1e7);
  o.json = a.flag("json");
  o.csv = a.flag("csv");
  if (o.json && o.csv) throw UsageError("--json and --csv exclude each other");
  setup_launcher(a, o);
  setup_trace_exports(a, o);
  return o;
}

bool write_index(const fs::path& path, const RunIndex& index) {
  return write_file_atomically(path.string(), index_to_json(index));
}

// An OpenMP program loads the tool from OMP_TOOL_LIBRARIES; without one,
// only programs that link the TBB observer produce reports.
std::string locate_tool(const RunOptions& o) {
  std::error_code ec;
  if (!o.tool.empty()) {
    if (!fs::is_regular_file(o.tool, ec)) throw UsageError("--tool " + o.tool + ": no such file");
    return fs::absolute(o.tool, ec).string();
  }
  if (auto found = find_ompt_tool(executable_dir())) return *found;
  std::string looked;
  for (const auto& c : ompt_tool_candidates(executable_dir())) looked += (looked.empty() ? "" : ", ") + c;
  std::fprintf(stderr,
               "rubato run: librubato_ompt.so not found (looked in %s); OpenMP programs will run without rubato "
               "and write no report — pass --tool PATH\n",
               looked.c_str());
  return "";
}

std::string outcome_text(const ChildResult& r, const Harvest& h, const RunEntry& entry, const fs::path& dir) {
  if (!entry.error.empty()) return entry.error + " — see " + dir.string();
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.3f s, exit %d", h.reports.empty() ? r.elapsed_s : h.wall_s, r.exit_status);
  return buf;
}

// One run of a --mix: its programs ({workers} substituted) under the run's policy.
ChildResult run_mix_trial(const RunOptions& o, const RunSpec& run, const std::string& dir) {
  MixSetup m;
  for (const auto& program : parse_mix(o.mix)) m.programs.push_back(substitute_workers(program, run.workers));
  m.mix_text = o.mix;
  std::string error;
  m.policy = *parse_policy(run.policy, error);
  m.env = {{"OMP_NUM_THREADS", std::to_string(run.workers)}};
  m.profile = o.profile;
  m.run_dir = dir;
  m.report_path = (fs::path(dir) / "report.r0.json").string();
  m.timeout_s = o.timeout_s;
  return run_mix(m);
}

// One trial of one program: started directly, or through the launcher with
// the tool's variables passed to every rank (and set in the launcher's own
// environment as well, for ranks it starts locally).
ChildResult launch_trial(const RunOptions& o, const std::vector<std::string>& command, const EnvOverrides& env,
                         const std::string& dir) {
  const std::vector<std::string> argv =
      o.launcher ? launch_command(*o.launcher, rank_environment(env, read_process_environment()), command) : command;
  return run_child(argv, env, (fs::path(dir) / "stdout.txt").string(), (fs::path(dir) / "stderr.txt").string(),
                   o.timeout_s);
}

// The back-end the runs ask for. auto never emulates; an experiment on a
// machine without real frequency control would then compare policies that
// change nothing, so it asks for the emulator explicitly, and says so.
std::string experiment_backend(const std::string& requested, const TrialSetup& trials) {
  if (!requested.empty()) return requested;
  if (trials.settings.backend != "auto") return "";  // RUBATO_BACKEND in the environment reaches every run
  if (trials.machine.real_frequency_control) return "";
  std::fprintf(stderr,
               "rubato run: no real frequency control here (%s): the runs ask for the DVFS emulator "
               "(--backend emulated): slowed workers really run longer and energy is modeled, not measured\n",
               trials.machine.chosen_backend_note.c_str());
  return "emulated";
}

// The --out directory, new: a directory that already holds a run is refused.
fs::path make_out_dir(const RunOptions& o) {
  const fs::path out = fs::absolute(o.out);
  std::error_code ec;
  if (fs::exists(out / kIndexFileName, ec))
    throw UsageError("--out " + o.out + " already holds a run (" + std::string(kIndexFileName) + "); choose another");
  fs::create_directories(out, ec);
  if (ec) throw std::runtime_error("cannot create " + out.string() + ": " + ec.message());
  return out;
}

// The index before any run: what is run, how, and with which tool.
RunIndex start_index(const RunOptions& o, const ToolSetup& tool) {
  RunIndex index;
  index.workload = command_line(o.program);
  index.command = o.program;
  index.started_at = now_as("%Y-%m-%dT%H:%M:%SZ", true);
  index.policies = o.policies;
  index.workers = o.workers;
  index.trials = o.trials;
  index.skip = o.skip;
  index.backend = tool.backend;
  index.profile = o.profile;
  index.likwid_group = o.likwid_group;
  index.tool = tool.ompt_tool;
  if (o.launcher) {
    index.launcher = o.launcher->text;
    index.launcher_kind = to_string(o.launcher->kind);
    index.launcher_ranks = o.launcher->ranks.value_or(0);
    std::fprintf(stderr, "rubato run: each trial launched by '%s' (%s: %s)\n", o.launcher->text.c_str(),
                 to_string(o.launcher->kind), o.launcher->kind_why.c_str());
    if (o.launcher->kind == LauncherKind::inherit)
      std::fprintf(stderr,
                   "rubato run: '%s' is no launcher rubato knows (Open MPI, MPICH/Hydra, Slurm): the tool's "
                   "variables are only set in its environment; pass --launcher-kind if the ranks do not get them\n",
                   o.launcher->argv.front().c_str());
  }
  return index;
}

struct TrialOutcome {
  ChildResult result;
  Harvest harvest;
  RunEntry entry;
  std::vector<std::string> notes;  // also in its reports (what --export-traces could not do)
};

// One planned run: started (a --mix, or one program, launched or not, under
// likwid or not), its reports harvested, its errors listed in its index entry.
TrialOutcome run_trial(const RunOptions& o, const ToolSetup& tool, const fs::path& out, const std::string& workload,
                       const RunSpec& run) {
  const std::string dir = run_directory(run);
  std::error_code ec;
  fs::create_directories(out / dir, ec);
  std::vector<std::string> command = substitute_workers(o.program, run.workers);
  RunLabel label{run, workload, command_line(command), 0, ""};
  if (o.launcher) {
    label.launched = true;
    label.expected_ranks = o.launcher->ranks.value_or(0);
  }
  if (!o.likwid_group.empty()) {
    label.likwid_csv = (out / dir / "likwid.csv").string();
    command = likwid_wrap(o.likwid_command, o.likwid_group, run.workers, label.likwid_csv, command);
  }
  const std::string run_dir = (out / dir).string();
  const bool launched = o.launcher.has_value();
  const std::string traces = o.trace_exports.formats.empty() ? "" : trace_pattern(run_dir, launched);
  const ChildResult r =
      !o.mix.empty()
          ? run_mix_trial(o, run, run_dir)
          : launch_trial(o, command, run_environment(run, tool, report_pattern(run_dir, launched), traces), run_dir);
  label.exit_status = r.started ? r.exit_status : 127;
  label.notes = export_trial_traces(run_dir, o.trace_exports);
  Harvest h = harvest_run(out.string(), dir, label);
  RunEntry entry{run.trial, run.policy, run.workers, dir, h.reports, label.exit_status, r.elapsed_s, ""};
  auto add_error = [&](const std::string& e) { entry.error += (entry.error.empty() ? "" : "; ") + e; };
  if (!r.started) add_error(r.error);
  if (r.timed_out) add_error("timed out after " + format_duration(o.timeout_s));
  if (r.interrupted) add_error("interrupted");
  if (r.started && r.exit_status != 0) add_error("exit status " + std::to_string(r.exit_status));
  if (!h.error.empty()) add_error(h.error);
  return {r, std::move(h), std::move(entry), std::move(label.notes)};
}

// The comparison of all runs on stdout, then where the results are and how
// the runs went; returns the exit status.
int finish(const RunOptions& o, const fs::path& out, std::size_t planned, std::size_t done, std::size_t failed,
           bool interrupted) {
  const Comparison c = compare_runs(load_run_records({out.string()}), {o.skip, "baseline"});
  for (const auto& line : c.refused) std::fprintf(stderr, "rubato run: %s\n", line.c_str());
  if (c.refused.empty())
    std::fputs((o.json ? comparison_json(c) : o.csv ? comparison_csv(c) : comparison_text(c)).c_str(), stdout);
  std::fflush(stdout);
  std::fprintf(stderr, "rubato run: results in %s (rubato compare %s; rubato report %s -o %s/report)\n",
               out.string().c_str(), out.string().c_str(), out.string().c_str(), out.string().c_str());
  if (interrupted) {
    std::fprintf(stderr, "rubato run: interrupted after %zu of %zu runs\n", done, planned);
    const int sig = interrupt_signal();
    return 128 + (sig > 0 ? sig : SIGINT);  // as a shell reports a process that signal ended
  }
  if (failed) {
    std::fprintf(stderr, "rubato run: %zu of %zu runs failed (kept, listed, not averaged)\n", failed, planned);
    return 1;
  }
  return 0;
}

}  // namespace

int run_run(const std::vector<std::string>& argv) {
  const RunOptions o = setup(argv);
  const TrialSetup trials =
      check_run_values({o.backend, o.profile, o.launcher.has_value(), read_process_environment()});
  for (const auto& line : trials.warnings) std::fprintf(stderr, "rubato run: %s\n", line.c_str());
  if (!o.likwid_group.empty()) {
    const LikwidProbe probe = probe_likwid(o.likwid_command, o.likwid_group);
    if (!probe.usable) {
      std::fprintf(stderr, "rubato run: --likwid %s cannot work here: %s\n", o.likwid_group.c_str(), probe.why.c_str());
      return 1;
    }
  }
  const ToolSetup tool{locate_tool(o), experiment_backend(o.backend, trials), o.profile};
  const fs::path out = make_out_dir(o);
  const fs::path index_path = out / kIndexFileName;
  RunIndex index = start_index(o, tool);
  if (!write_index(index_path, index)) throw std::runtime_error("cannot write " + index_path.string());

  const std::vector<RunSpec> plan = interleaved_plan(o.policies, o.workers, o.trials);
  std::fprintf(stderr, "rubato run: %zu runs (%d trials x %zu policies x %zu worker counts) of %s into %s\n",
               plan.size(), o.trials, o.policies.size(), o.workers.size(), index.workload.c_str(),
               out.string().c_str());
  install_interrupt_forwarding();
  Progress progress(plan.size(), o.trials, isatty(STDERR_FILENO) != 0, stderr);
  std::size_t failed = 0;
  bool interrupted = false;
  std::set<std::string> said;
  for (std::size_t i = 0; i < plan.size() && !interrupted; ++i) {
    const RunSpec& run = plan[i];
    progress.starting(i, run);
    const TrialOutcome t = run_trial(o, tool, out, index.workload, run);
    interrupted = t.result.interrupted || interrupt_requested();
    const bool ok = t.entry.error.empty();
    failed += ok ? 0 : 1;
    index.runs.push_back(t.entry);
    if (!write_index(index_path, index)) throw std::runtime_error("cannot write " + index_path.string());
    for (const auto& w : t.harvest.warnings) std::fprintf(stderr, "rubato run: %s\n", w.c_str());
    for (const auto& n : t.notes)  // the same note of every trial once (a program that records no trace)
      if (said.insert(n).second) std::fprintf(stderr, "rubato run: %s\n", n.c_str());
    progress.finished(i, run, t.result.elapsed_s, outcome_text(t.result, t.harvest, t.entry, out / t.entry.dir), !ok);
  }
  progress.close();
  return finish(o, out, plan.size(), index.runs.size(), failed, interrupted);
}

}  // namespace rubato::cli
