#include "experiment/mix_runner.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <thread>

#include "commands/args.hpp"
#include "analysis/file_io.hpp"
#include "experiment/run_plan.hpp"
#include "rubato/core/io/report.hpp"
#include "rubato/core/config/settings.hpp"
#include "rubato/core/version.hpp"
#include "rubato/power/session/controller_host.hpp"
#include "rubato/power/os/process_throttle.hpp"
#include "rubato/power/machine/profile.hpp"
#include "rubato/power/session/run_identity.hpp"
#include "rubato/power/machine/topology.hpp"

namespace rubato::cli {
namespace {

namespace fs = std::filesystem;

struct Program {
  std::vector<std::string> argv;
  pid_t pid = -1;
  bool running = false;
  int exit_status = 127;
  std::string error;
};

// The controllers' setup from the environment's RUBATO_* (counters, interval,
// profile), as a tool in a program would read them.
ControllerSetup controller_setup(const MixSetup& m, ThrottleActuator* throttle, const Clock& clock,
                                 std::uint64_t origin_ns, Report& report) {
  Diagnostics diag;
  const Settings settings = load_settings(read_process_environment(), diag);
  for (const auto& line : diag.lines) {
    std::fprintf(stderr, "rubato run: %s\n", line.c_str());
    report.notes.push_back(line);
  }
  const auto dirs = profile_search_dirs(settings.profile_dir);
  const std::string setting = m.profile.empty() ? settings.profile : m.profile;
  std::string error;
  const std::optional<MachineProfile> profile = resolve_profile(setting, dirs, error).profile;
  if (!profile) report.notes.push_back("no machine profile (" + error + ")");
  else report.profile = profile->name;
  ControllerSetup s = controller_setup_for(settings, profile, read_topology(settings.sysfs_root), TargetKind::programs);
  s.policy = m.policy;  // the run's, not RUBATO_POLICY
  s.throttle = throttle;
  s.clock = &clock;
  s.origin_ns = origin_ns;
  return s;
}

void terminate_all(std::vector<Program>& programs, int sig) {
  for (const Program& p : programs)
    if (p.running) {
      kill(-p.pid, sig);
      kill(-p.pid, SIGCONT);
    }
}

}  // namespace

std::vector<std::vector<std::string>> parse_mix(std::string_view text) {
  std::vector<std::vector<std::string>> out;
  for (const std::string& part : split(std::string(text), ';')) {
    std::vector<std::string> argv;
    std::string word;
    for (char c : part + " ") {
      if (c == ' ' || c == '\t' || c == '\n') {
        if (!word.empty()) argv.push_back(std::move(word));
        word.clear();
      } else {
        word += c;
      }
    }
    if (argv.empty()) throw UsageError("--mix: program " + std::to_string(out.size() + 1) + " is empty");
    out.push_back(std::move(argv));
  }
  if (out.empty()) throw UsageError("--mix: no program given");
  return out;
}

namespace {

// The mix's report before it runs: who, what, and why it has no energy.
Report mix_report(const MixSetup& m) {
  Report report;
  report.tool_version = kVersion;
  const RunIdentity id = current_run_identity(read_process_environment());
  report.host = id.host;
  report.pid = id.pid;
  report.started_at = id.started_at;
  report.command = m.mix_text;
  report.runtime = "processes";
  report.frontend = "mix";
  report.steals_observed = false;
  report.backend = "none";
  report.policy = m.policy.name();
  report.energy.why_not =
      "a --mix run measures no energy (rubato changes no frequency here; programs are only stopped, "
      "continued and placed)";
  return report;
}

// Starts every program of the mix, each in its own process group, known to
// the throttle and the controllers; returns how many started.
std::size_t start_programs(const MixSetup& m, std::vector<Program>& programs, ProcessThrottle& throttle,
                           ControllerHost* host, Report& report, ChildResult& result) {
  std::size_t running = 0;
  for (std::size_t i = 0; i < programs.size(); ++i) {
    Program& p = programs[i];
    p.argv = m.programs[i];
    const fs::path dir(m.run_dir);
    const std::string n = std::to_string(i);
    p.pid = spawn_child(p.argv, m.env, (dir / ("stdout.p" + n + ".txt")).string(),
                        (dir / ("stderr.p" + n + ".txt")).string(), p.error);
    if (p.pid < 0) continue;
    p.running = true;
    ++running;
    result.started = true;
    if (!register_mix_group(p.pid))
      report.notes.push_back("program " + n + " is not continued by rubato's signal handlers (too many)");
    throttle.add_program(i, p.pid);
    if (host) host->target_started(i, p.pid, 0);
  }
  return running;
}

// Collects the programs that have exited; returns how many did.
std::size_t reap_programs(std::vector<Program>& programs, ProcessThrottle& throttle, ControllerHost* host) {
  std::size_t stopped = 0;
  for (std::size_t i = 0; i < programs.size(); ++i) {
    Program& p = programs[i];
    if (!p.running) continue;
    int status = 0;
    const pid_t w = waitpid(p.pid, &status, WNOHANG);
    if (w != p.pid) continue;
    p.running = false;
    p.exit_status = exit_status_code(status);
    ++stopped;
    if (host) host->target_stopped(i);
    throttle.forget_program(i);
    unregister_mix_group(p.pid);
  }
  return stopped;
}

// Waits for every program; on an interrupt or past the timeout, SIGTERM,
// then SIGKILL two seconds later.
void wait_for_programs(const MixSetup& m, std::vector<Program>& programs, std::size_t running,
                       const std::function<double()>& elapsed, ProcessThrottle& throttle, ControllerHost* host,
                       ChildResult& result) {
  bool term_sent = false;
  double kill_at = 0;
  while (running > 0) {
    running -= reap_programs(programs, throttle, host);
    const double now = elapsed();
    if (interrupt_requested() && !term_sent) {
      result.interrupted = true;
      term_sent = true;
      kill_at = now + 2.0;
      terminate_all(programs, SIGTERM);
    } else if (m.timeout_s > 0 && !term_sent && now > m.timeout_s) {
      result.timed_out = true;
      term_sent = true;
      kill_at = now + 2.0;
      terminate_all(programs, SIGTERM);
    } else if (term_sent && now > kill_at) {
      terminate_all(programs, SIGKILL);
      kill_at = now + 3600;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// Each program as a worker of the report and a note; the first failure is the run's.
void record_programs(const std::vector<Program>& programs, Report& report, ChildResult& result) {
  report.workers_requested = static_cast<int>(programs.size());
  for (std::size_t i = 0; i < programs.size(); ++i) {
    WorkerReport w;
    w.id = static_cast<WorkerId>(i);
    report.workers.push_back(w);
    const Program& p = programs[i];
    report.notes.push_back("program " + std::to_string(i) + " (" + command_line(p.argv) +
                           "): " + (p.pid < 0 ? p.error : "exit status " + std::to_string(p.exit_status)));
    if (p.pid < 0 && result.error.empty()) result.error = p.error;
    const int status = p.pid < 0 ? 127 : p.exit_status;
    if (status != 0 && result.exit_status == 0) result.exit_status = status;
  }
}

}  // namespace

ChildResult run_mix(const MixSetup& m) {
  ChildResult result;
  SteadyClock clock;
  const std::uint64_t origin_ns = clock.now_ns();
  Report report = mix_report(m);

  ProcessThrottle throttle(clock);
  std::vector<std::string> warnings;
  std::unique_ptr<ControllerHost> host = ControllerHost::start(
      controller_setup(m, m.policy.efs ? &throttle : nullptr, clock, origin_ns, report), warnings);
  for (const auto& line : warnings) {
    std::fprintf(stderr, "rubato run: %s\n", line.c_str());
    report.notes.push_back(line);
  }

  std::vector<Program> programs(m.programs.size());
  const std::size_t running = start_programs(m, programs, throttle, host.get(), report, result);
  const auto elapsed = [&] { return static_cast<double>(clock.now_ns() - origin_ns) * 1e-9; };
  wait_for_programs(m, programs, running, elapsed, throttle, host.get(), result);
  result.elapsed_s = elapsed();
  throttle.release_all();

  report.wall_s = result.elapsed_s;
  record_programs(programs, report, result);
  if (host) {
    host->stop();
    host->fill_report(report);
  }
  if (!write_file_atomically(m.report_path, to_json(report)))
    std::fprintf(stderr, "rubato run: cannot write %s\n", m.report_path.c_str());
  return result;
}

}  // namespace rubato::cli
