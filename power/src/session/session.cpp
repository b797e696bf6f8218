#include "rubato/power/session/session.hpp"

#include <sys/auxv.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>

#include "rubato/core/base/clock.hpp"
#include "rubato/core/io/output_file.hpp"
#include "rubato/core/version.hpp"
#include "rubato/power/frequency/backend_registry.hpp"
#include "rubato/power/session/controller_host.hpp"
#include "rubato/power/energy/energy_meter.hpp"
#include "rubato/power/energy/power_model.hpp"
#include "rubato/power/frequency/uncore_ladder.hpp"
#include "rubato/power/machine/profile.hpp"
#include "rubato/power/state/restore_guard.hpp"
#include "rubato/power/os/periodic_thread.hpp"
#include "rubato/power/session/run_identity.hpp"
#include "rubato/power/session/slack_setup.hpp"
#include "rubato/power/os/thread_binding.hpp"
#include "rubato/power/machine/topology.hpp"
#include "rubato/power/frequency/uncore_frequency.hpp"
#include "rubato/power/frequency/uncore_control_modeled.hpp"
#include "rubato/power/frequency/uncore_control_sysfs.hpp"
#include "rubato/core/tempo/task_type_registry.hpp"
#include "rubato/power/session/min_energy_setup.hpp"
#include "rubato/power/session/operating_point.hpp"

namespace rubato {
namespace {

enum class LogLevel { error, warn, info, debug };

LogLevel log_level(const std::string& text) {
  if (text == "error") return LogLevel::error;
  if (text == "info") return LogLevel::info;
  if (text == "debug") return LogLevel::debug;
  return LogLevel::warn;
}

void say(const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); }

std::string shown_list(const std::vector<double>& hz) {
  std::string out;
  for (double f : hz) out += (out.empty() ? "" : ",") + format_frequency(f);
  return out;
}

// What a worker maps to: its nominal core and its clock domain.
struct WorkerLayout {
  std::vector<int> cpu_of_worker;
  std::vector<DomainId> domain_of_worker;
  std::vector<std::vector<int>> cpus_of_domain;
};

// Real back-ends (and a dry run on a machine with cpufreq) group workers by the
// clock domain of their nominal core. The emulator places workers on the
// emulated machine the way HERMES ran its experiments: one worker per clock
// domain while there are free domains ("all our experiments are performed over
// cores with distinct clock domains", [HERMES] §4.1); only workers beyond the
// profile's domain count share a domain (worker w with worker w - domains).
WorkerLayout plan_layout(const Topology& topo, std::size_t max_workers, bool use_hardware_domains,
                         int emulated_domains) {
  WorkerLayout l;
  std::map<std::string, DomainId> ids;
  const std::size_t ncpu = topo.cpus.size();
  for (std::size_t w = 0; w < max_workers; ++w) {
    const int cpu = topo.cpus[w % ncpu];
    std::string key;
    if (use_hardware_domains) {
      const int d = topo.clock_domain_of(cpu);
      key = d >= 0 ? "policy:" + std::to_string(d) : "cpu:" + std::to_string(cpu);
    } else {
      key = "group:" + std::to_string(w % static_cast<std::size_t>(std::max(1, emulated_domains)));
    }
    auto [it, inserted] = ids.emplace(key, static_cast<DomainId>(l.cpus_of_domain.size()));
    if (inserted) {
      if (use_hardware_domains && topo.clock_domain_of(cpu) >= 0)
        l.cpus_of_domain.push_back(topo.clock_domains[static_cast<std::size_t>(topo.clock_domain_of(cpu))].cpus);
      else l.cpus_of_domain.push_back({});
    }
    if (!use_hardware_domains || topo.clock_domain_of(cpu) < 0) {
      auto& cpus = l.cpus_of_domain[it->second];
      if (std::find(cpus.begin(), cpus.end(), cpu) == cpus.end()) cpus.push_back(cpu);
    }
    l.cpu_of_worker.push_back(cpu);
    l.domain_of_worker.push_back(it->second);
  }
  return l;
}

class LiveSession final : public Session {
 public:
  LiveSession(Settings settings, SessionInfo info, const Environment& env)
      : settings_(std::move(settings)), info_(std::move(info)), identity_(current_run_identity(env)) {}

  ~LiveSession() override { finish(); }

  // Everything that can fail; false + `why` leaves nothing changed.
  bool start(std::string& why);
  bool attach_backend(std::string& why);

  Engine& engine() noexcept override { return *engine_; }
  const Settings& settings() const noexcept override { return settings_; }

  void worker_started(WorkerId w) noexcept override {
    if (settings_.binding == "static") pin(w);
    engine_->worker_begin(w);
    if (controllers_) controllers_->target_started(w, identity_pid(), current_tid());
  }
  void worker_stopped(WorkerId w) noexcept override {
    if (controllers_) controllers_->target_stopped(w);
    engine_->worker_end(w);
    if (settings_.binding == "static") unpin_current_thread();
  }
  void start_controllers(ThrottleActuator* throttle) noexcept override;
  const OperatingPoint* operating_point() const noexcept override {
    return settings_.policy.min_energy ? &operating_point_ : nullptr;
  }
  void before_task(WorkerId w) noexcept override {
    if (settings_.binding == "dynamic") pin(w);
  }
  void after_task(WorkerId) noexcept override {
    if (settings_.binding == "dynamic") unpin_current_thread();
  }
  void note(std::string line) noexcept override {
    try {
      std::lock_guard<std::mutex> lock(notes_mutex_);
      notes_.push_back(std::move(line));
    } catch (...) {
      count_error();
    }
  }
  void count_error() noexcept override { errors_.fetch_add(1, std::memory_order_relaxed); }
  TaskType task_type_for(std::uint64_t code) noexcept override {
    if (!engine_ || !engine_->records_task_types()) return kUntypedTask;
    try {
      return task_types_.type_of(code);
    } catch (...) {
      count_error();
      return kUntypedTask;
    }
  }
  void exiting_with(int status) noexcept override { exit_status_.store(status & 0xff, std::memory_order_relaxed); }
  const Report& finish() noexcept override;

 private:
  // The report at a termination signal (restore_guard.hpp), on the reporting
  // thread: the session's finish, marked with the signal. It waits at most 2 s
  // for a finish under way elsewhere (the signal handler waits 3 s for it).
  static void finish_at_signal(void* self, int sig) noexcept;
  // finish_mutex_ held; `exit_status` as a shell would report it, nullopt when not known.
  void finish_locked(const char* ended, std::optional<int> exit_status) noexcept;
  void disarm_signal_report_once() noexcept {
    if (signal_report_armed_.exchange(false)) disarm_signal_report();
  }
  void pin(WorkerId w) noexcept {
    if (w >= layout_.cpu_of_worker.size()) return;
    if (pin_current_thread(layout_.cpu_of_worker[w]))
      worker_bound_[w].store(layout_.cpu_of_worker[w], std::memory_order_relaxed);
    else if (!pin_failure_noted_.exchange(true))
      note("binding: pinning a worker to cpu " + std::to_string(layout_.cpu_of_worker[w]) + " failed; it runs unbound");
  }
  bool logs(LogLevel at) const { return log_level(settings_.log) >= at; }

  // HERMES's tempo decisions follow pushes and steals ([HERMES] §3): a run
  // that delivered none (a front-end that sees threads only, a program that
  // spawned nothing) left the policy nothing to act on. Said, never hidden in
  // a report with 0 level changes.
  void note_nothing_to_act_on(Report& r) {
    const PolicySpec& p = engine_->policy();
    if (!p.workpath() && !p.workload()) return;
    std::uint64_t events = 0;
    for (const WorkerReport& w : r.workers) events += w.pushes + w.steals;
    if (events > 0) return;
    const std::string line = "policy " + p.name() +
                             " had nothing to act on: no task events (pushes, steals) reached "
                             "the engine from front-end " +
                             info_.frontend;
    r.notes.push_back(line);
    if (logs(LogLevel::warn)) say("rubato: " + line);
  }
  static int identity_pid() noexcept { return static_cast<int>(getpid()); }
  // Asked once per thread: worker_started runs again whenever a TBB thread re-enters its arena.
  static int current_tid() noexcept {
    thread_local const int tid = static_cast<int>(gettid());
    return tid;
  }
  // Parts of finish_locked(), in the order it runs them.
  void fill_identity(Report& r, double wall_s);
  void fill_workers(Report& r);
  void restore_machine(Report& r);
  void fill_energy(Report& r, double wall_s);
  void write_report(Report& r);
  void start_sweeper();
  void start_uncore(bool real_backend);
  // min-energy: the uncore lever (sysfs where the back-end is real and the
  // driver usable, else modeled on the profile's ladder; none where
  // RUBATO_UNCORE pins it or there is no ladder), and the controller host.
  void make_uncore_lever();
  std::vector<double> uncore_lever_levels() const;
  void start_host(ThrottleActuator* throttle) noexcept;
  void closed_loop_setup(ControllerSetup& setup);
  void fill_uncore_energy(RunActivity& activity, Report& r);
  // start(), in order: profile, back-end (engine attached), meter, announcement.
  void choose_profile();
  void choose_plant(const std::vector<std::string>& dirs);
  const MachineProfile* energy_law() const;
  std::optional<double> emulated_energy_j();
  bool choose_backend(std::string& why);
  void start_meter();
  void announce_start();
  // attach_backend(), in order: the ladder, the engine's options, the engine, the saved state.
  TempoLadder make_ladder();
  EngineOptions engine_options(const TempoLadder& ladder);
  bool save_machine_state(std::string& why);

  Settings settings_;
  SessionInfo info_;
  RunIdentity identity_;
  Topology topology_;
  std::optional<MachineProfile> profile_;
  std::optional<MachineProfile> plant_profile_;  // RUBATO_PLANT's machine (the emulator's law)
  // The emulator's meter (emulated_energy_j; the controller thread's alone).
  std::optional<PowerModel> emulated_power_;
  double emulated_j_ = 0, emulated_w_ = 0;
  std::uint64_t emulated_since_ns_ = 0;
  double machine_max_hz_ = 0;
  std::unique_ptr<FrequencyControl> freq_;
  std::string backend_note_;
  std::unique_ptr<UncoreFrequency> uncore_;      // RUBATO_UNCORE on a machine that has the driver
  double modeled_uncore_hz_ = 0;                 // the uncore frequency the power model charges; 0: the constant
  std::unique_ptr<UncoreControl> uncore_lever_;  // min-energy's; null where it does not move the uncore
  OperatingPoint operating_point_;
  std::unique_ptr<EnergyMeter> meter_;
  std::string meter_note_;
  PeriodicThread sweeper_;  // slack / guarded: Engine::slack_sweep
  BetaChoice beta_;
  SteadyClock clock_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<ControllerHost> controllers_;  // efs / affinity; null when the policy has neither
  TaskTypeRegistry task_types_;                  // the closed loop's types, by the code front-ends name them by
  WorkerLayout layout_;
  std::unique_ptr<std::atomic<int>[]> worker_bound_;
  std::uint64_t start_ns_ = 0;
  bool started_ = false;

  std::mutex notes_mutex_;
  std::vector<std::string> notes_;
  std::atomic<std::uint64_t> errors_{0};
  std::atomic<bool> pin_failure_noted_{false};

  std::timed_mutex finish_mutex_;
  bool finished_ = false;
  std::atomic<bool> signal_report_armed_{false};
  std::atomic<int> exit_status_{-1};  // exiting_with's; -1: not told
  Report report_;
};

// The tempo ladder ([HERMES] §3.4): RUBATO_FREQS, else the policy's default
// over what the back-end (or the profile) offers (TempoLadder::default_for).
TempoLadder LiveSession::make_ladder() {
  std::vector<double> available = freq_->available_hz();
  if (available.empty() && profile_) available = profile_->frequencies_hz;
  if (available.empty()) available = {machine_max_hz_ > 0 ? machine_max_hz_ : 1e9};
  if (machine_max_hz_ <= 0) machine_max_hz_ = available.front();
  TempoLadder ladder = settings_.freqs_hz.empty() ? TempoLadder::default_for(settings_.policy.min_energy, available)
                                                  : TempoLadder(settings_.freqs_hz);
  if (ladder.max_hz() > machine_max_hz_ * 1.0001)
    note("RUBATO_FREQS fastest " + format_frequency(ladder.max_hz()) + " is above the machine's " +
         format_frequency(machine_max_hz_));
  return ladder;
}

// The engine's options for the settings, the worker layout and the profile.
EngineOptions LiveSession::engine_options(const TempoLadder& ladder) {
  EngineOptions o;
  o.policy = settings_.policy;
  o.ladder = ladder;
  o.thresholds = settings_.thresholds;
  o.profile_window = settings_.profile_window;
  o.sample_interval_ns = static_cast<std::uint64_t>(settings_.profile_interval_s * 1e9);
  o.fixed_thresholds = settings_.threshold_values;
  o.max_workers = settings_.max_workers;
  o.worker_domain = layout_.domain_of_worker;
  // min-energy's closed loop measures segment durations by task type.
  o.task_type_stats = settings_.policy.min_energy && settings_.min_energy_closed_loop;
  // slack and the cost guard (rubato's own, beyond the papers).
  const MachineProfile* profile = profile_ ? &*profile_ : nullptr;
  o.slack_dwell_ns = static_cast<std::uint64_t>(slack_dwell_s(settings_, profile) * 1e9);
  o.raise_latency_ns =
      profile && freq_->changes_speed() ? static_cast<std::uint64_t>(profile->transition_latency_s * 1e9) : 0;
  beta_ = beta_for(settings_, profile);
  if (o.policy.guarded && !profile) {
    if (logs(LogLevel::warn))
      say("rubato: RUBATO_POLICY=" + o.policy.name() +
          ": the cost guard needs a machine profile (RUBATO_PROFILE); "
          "the guard is off and every slowing decision is applied");
    note("guarded: no machine profile, the guard is off");
    o.policy.guarded = false;
  }
  if ((o.policy.guarded || o.policy.slack) && profile) {
    // With min-energy moving the uncore, the guard weighs a slowing with the
    // uncore at its level and the work's shares; else as the β model does.
    // slack's cost test weighs a lowering with the same model.
    const WorkSensitivity work{beta_.beta, std::max(0.0, settings_.uncore_sensitivity)};
    o.cost = uncore_lever_
                 ? cost_model_for(*profile, Engine::ladder_for(o), work, uncore_lever_levels(), settings_.uncore_hz)
                 : cost_model_for(*profile, Engine::ladder_for(o), beta_.beta, settings_.uncore_hz);
    if (!uncore_lever_) o.cost.uncore_sensitivity = work.uncore;
  }
  return o;
}

std::vector<double> LiveSession::uncore_lever_levels() const {
  if (!uncore_lever_ || uncore_lever_->domains() == 0) return {};
  return uncore_lever_->ladder(0).levels_hz();
}

// min-energy's uncore lever. A real frequency back-end with the driver
// usable moves the machine's uncore (saved and restored like cpufreq);
// otherwise the level is only recorded (the emulator and the power model
// apply it). RUBATO_UNCORE pins the uncore for the whole run: no lever then.
void LiveSession::make_uncore_lever() {
  uncore_lever_.reset();
  if (!settings_.policy.min_energy || !profile_) return;
  if (settings_.uncore_hz > 0) {
    note("min-energy: RUBATO_UNCORE=" + format_frequency(settings_.uncore_hz) +
         " pins the uncore, so min-energy chooses the core level only");
    return;
  }
  const std::uint64_t interval_ns = uncore_min_interval_ns(&*profile_);
  const bool real = freq_->changes_speed() && freq_->name() != "emulated";
  std::string why = "the frequency back-end " + std::string(freq_->name()) + " changes no real frequency";
  if (real) {
    auto sysfs = std::make_unique<SysfsUncoreControl>(topology_, settings_.state_dir, &clock_, interval_ns);
    if (sysfs->usable(why) && sysfs->domains() > 0) {
      uncore_lever_ = std::move(sysfs);
      return;
    }
  }
  UncoreLadder ladder = UncoreLadder::from_profile(*profile_);
  if (ladder.empty()) {
    note("min-energy: profile " + profile_->name +
         " has no uncore_power table: the uncore is not modelled, "
         "min-energy chooses the core level only");
    return;
  }
  uncore_lever_ = std::make_unique<ModeledUncoreControl>(std::move(ladder), 1, 0, &clock_, interval_ns);
  note("min-energy: the uncore is modelled, not moved (" + why + "); its levels come from profile " + profile_->name);
}

// Records machine state before the first change (the engine changes nothing
// until the first worker begins).
bool LiveSession::save_machine_state(std::string& why) {
  DomainPlan plan;
  plan.cpus_of_domain = layout_.cpus_of_domain;
  plan.ladder = engine_->ladder();
  plan.max_workers = settings_.max_workers;
  if (!freq_->save(plan, why)) {
    why = std::string(freq_->name()) + ": " + why;
    return false;
  }
  if (settings_.binding == "none" && freq_->changes_speed() && freq_->name() != "emulated")
    note(
        "binding none: a worker's tempo is applied to its nominal core's clock domain, but the OS may run it "
        "elsewhere; RUBATO_BINDING=static pins workers ([HERMES] §3.4)");
  return true;
}

// Tempo ladder, worker layout and engine for the chosen back-end, then the
// back-end records machine state (the engine changes nothing until the first
// worker begins). false + `why`: nothing was changed.
bool LiveSession::attach_backend(std::string& why) {
  const TempoLadder ladder = make_ladder();
  const bool hardware_domains = freq_->name() != "emulated" && !topology_.clock_domains.empty();
  const int emulated_domains = profile_ ? std::max(1, profile_->cores / std::max(1, profile_->cores_per_domain))
                                        : static_cast<int>(settings_.max_workers);
  layout_ = plan_layout(topology_, settings_.max_workers, hardware_domains, emulated_domains);
  worker_bound_ = std::make_unique<std::atomic<int>[]>(settings_.max_workers);
  for (std::size_t w = 0; w < settings_.max_workers; ++w) worker_bound_[w].store(-1);
  make_uncore_lever();
  EngineOptions options = engine_options(ladder);
  try {
    engine_ = std::make_unique<Engine>(std::move(options), clock_, *freq_);
  } catch (const std::exception& e) {
    why = std::string("engine: ") + e.what();
    return false;
  }
  return save_machine_state(why);
}

// RUBATO_PROFILE, else the generic profile; none: energy cannot be modeled.
void LiveSession::choose_profile() {
  const auto dirs = profile_search_dirs(settings_.profile_dir);
  std::string error;
  ChosenProfile chosen = resolve_profile(settings_.profile, dirs, error);
  const std::string profile_name = std::move(chosen.name);
  profile_ = std::move(chosen.profile);
  if (!profile_ && profile_name != "generic") {
    say("rubato: RUBATO_PROFILE: " + error + "; using the generic profile");
    profile_ = load_profile("generic", dirs, error);
  }
  if (!profile_) note("no machine profile (" + error + "): energy cannot be modeled");
  choose_plant(dirs);
}

// RUBATO_PLANT: the emulator's truth. Its machine is loaded here; a plant
// that cannot be read is left off (one line), never the run.
void LiveSession::choose_plant(const std::vector<std::string>& dirs) {
  EmulatorPlant& plant = settings_.plant;
  if (!plant.given) return;
  if (settings_.backend != "emulated") {
    note("RUBATO_PLANT is the emulator's truth; with RUBATO_BACKEND=" + settings_.backend + " it is not used");
    plant.given = false;
    return;
  }
  if (plant.profile.empty()) return;
  std::string error;
  plant_profile_ = load_profile(plant.profile, dirs, error);
  if (!plant_profile_) {
    say("rubato: RUBATO_PLANT profile=" + plant.profile + ": " + error +
        " (accepted: a profile name or a JSON file); the plant is off, the emulator follows the settings");
    plant.given = false;
  }
}

// The machine energy is modelled with: the plant's where RUBATO_PLANT gives one.
const MachineProfile* LiveSession::energy_law() const {
  if (settings_.plant.given && plant_profile_) return &*plant_profile_;
  return profile_ ? &*profile_ : nullptr;
}

// The emulator's meter for the closed loop: the plant's power (else the
// profile's) at each call — every working worker at its domain's level, every
// waiting one idle there, the uncore at the level in force — integrated over
// the time since the last call. A model of the plant, said in the report.
std::optional<double> LiveSession::emulated_energy_j() {
  const MachineProfile* law = energy_law();
  if (!law) return std::nullopt;
  if (!emulated_power_) emulated_power_.emplace(*law);
  const std::uint64_t now = clock_.now_ns();
  double watts =
      emulated_power_->uncore_w(operating_point_.uncore_hz() > 0 ? operating_point_.uncore_hz() : modeled_uncore_hz_);
  for (WorkerId w = 0; w < engine_->max_workers(); ++w) {
    if (!engine_->seen(w)) continue;
    const double hz = engine_->frequency_hz(w);
    watts += engine_->waiting(w) ? emulated_power_->idle_w(hz) : emulated_power_->busy_w(hz);
  }
  if (emulated_since_ns_ > 0) emulated_j_ += emulated_w_ * static_cast<double>(now - emulated_since_ns_) * 1e-9;
  emulated_since_ns_ = now;
  emulated_w_ = watts;
  return emulated_j_;
}

// The frequency back-end (frequency/backend_registry.cpp) with the engine
// attached; one that cannot take control falls back to dry-run.
bool LiveSession::choose_backend(std::string& why) {
  BackendContext ctx{settings_, topology_, profile_ ? &*profile_ : nullptr, machine_max_hz_};
  // The emulator follows min-energy's uncore level (none where RUBATO_UNCORE pins it: make_uncore_lever);
  // a plant (RUBATO_PLANT) follows a pinned uncore too: the operating point then holds the pin.
  ctx.operating_point = settings_.policy.min_energy && settings_.uncore_hz <= 0 ? &operating_point_ : nullptr;
  ctx.plant_profile = plant_profile_ ? &*plant_profile_ : nullptr;
  if (settings_.plant.given && settings_.uncore_hz > 0 && profile_) {
    const UncoreLadder ladder = UncoreLadder::from_profile(*profile_);
    if (!ladder.empty()) {
      operating_point_.set_reference_uncore_hz(ladder.fastest_hz());
      operating_point_.set_uncore_hz(settings_.uncore_hz);
      ctx.operating_point = &operating_point_;
    }
  }
  BackendChoice choice = choose_frequency_control(ctx);
  freq_ = std::move(choice.control);
  backend_note_ = std::move(choice.note);
  // An explicit request that cannot be met is a configuration problem: say so
  // once. auto's choice is reported at RUBATO_LOG=info, except when it found
  // no real control for a policy that wants to change frequencies: the user
  // asked for a tempo policy and gets none, so that is said at the default level.
  if (settings_.backend != "auto" && freq_->name() != settings_.backend && logs(LogLevel::warn))
    say("rubato: RUBATO_BACKEND=" + settings_.backend + " is not usable here; " + backend_note_);
  else if (settings_.backend == "auto" && !choice.real && settings_.policy.changes_tempo() && logs(LogLevel::warn))
    say("rubato: " + no_real_control_line(choice));

  if (!attach_backend(why)) {
    if (freq_->name() == "emulated" || freq_->name() == "dry-run") return false;
    // A back-end that was usable but could not take control (e.g. the state
    // file could not be written): the program still runs, with decisions
    // recorded only (never emulated unasked: that would slow it down).
    const std::string failed = std::string(freq_->name()) + " could not take control (" + why + ")";
    say("rubato: " + failed + "; recording decisions only (dry-run)");
    engine_.reset();
    freq_ = find_frequency_backend("dry-run")->make(ctx);
    backend_note_ = "backend dry-run (fallback; " + failed + ")";
    if (!attach_backend(why)) return false;
  }

  if (settings_.uncore_hz > 0) start_uncore(choice.real && freq_->name() != "dry-run");
  return true;
}

// The first usable energy meter (energy/energy_meter.cpp), else the model.
void LiveSession::start_meter() {
  EnergyChoice energy = choose_energy_meter(settings_, topology_);
  meter_ = std::move(energy.meter);
  meter_note_ = std::move(energy.note);
  std::string error;
  if (meter_ && !meter_->start(error)) {
    meter_note_ += "; " + std::string(meter_->name()) + " failed to start: " + error;
    meter_.reset();
  }
}

void LiveSession::announce_start() {
  if (logs(LogLevel::info))
    say("rubato: policy " + engine_->policy().name() + ", " + backend_note_ + ", profile " +
        (profile_ ? profile_->name : "(none)") + ", tempo " + shown_list(engine_->ladder().frequencies_hz()) +
        ", binding " + settings_.binding);
  // The trace is named at start as the report is at the end: the OpenMP
  // front-end records it to this path, the TBB front-ends record none (and say so).
  if (!settings_.trace.empty() && info_.frontend == "ompt" && logs(LogLevel::info))
    say("rubato: trace recorded to " +
        expand_path_pattern(settings_.trace, identity_.pid, identity_.host, identity_.rank));
}

bool LiveSession::start(std::string& why) {
  topology_ = read_topology(settings_.sysfs_root);
  choose_profile();
  const std::vector<double> hw_hz = topology_.available_hz();
  machine_max_hz_ = !hw_hz.empty() ? hw_hz.front() : profile_ ? profile_->frequencies_hz.front() : 0;
  if (!choose_backend(why)) return false;
  start_meter();
  start_ns_ = clock_.now_ns();
  started_ = true;
  start_sweeper();
  // min-energy needs no actuator of the front-end: it starts now, so that a
  // front-end that never calls start_controllers (the preload) runs it too.
  // With efs or affinity the front-end's call starts them all together.
  if (settings_.policy.min_energy && !settings_.policy.efs && !settings_.policy.affinity) start_host(nullptr);
  announce_start();
  // A run stopped by a signal still gets its report.
  if (!settings_.report.empty()) signal_report_armed_.store(arm_signal_report(&LiveSession::finish_at_signal, this));
  return true;
}

// slack lowers waiting workers, and the guard counts active ones, from a
// thread of its own: a waiting worker runs no rubato code. With slack it
// sleeps until the earliest known wait reaches the dwell, or a whole dwell
// when no worker waits: a wait that begins meanwhile is seen at the next
// wake-up, at most a dwell later, and lowered when it reaches the dwell. On
// a machine whose cores are all busy each wake-up preempts a worker, so it
// wakes as seldom as that allows. For the guard alone every 10 ms.
void LiveSession::start_sweeper() {
  if (!engine_->sweeps()) return;
  const std::uint64_t dwell_ns = engine_->options().slack_dwell_ns;
  const std::uint64_t idle_period_ns = engine_->policy().slack ? dwell_ns : 10'000'000;
  Engine* engine = engine_.get();
  const SteadyClock* clock = &clock_;
  sweeper_.start([engine, clock, idle_period_ns] {
    const std::uint64_t now = clock->now_ns();
    const std::uint64_t next = engine->slack_sweep(now);
    const std::uint64_t wait_ns = next == Engine::kNever ? idle_period_ns : std::max<std::uint64_t>(next - now, 50'000);
    return std::chrono::nanoseconds(static_cast<std::int64_t>(std::min(wait_ns, idle_period_ns)));
  });
}

// RUBATO_UNCORE: pinned for real where the frequency back-end is real and the
// driver is there; with the emulator or a dry run nothing real changes, and
// the power model alone charges the uncore at that frequency.
void LiveSession::start_uncore(bool real_backend) {
  const std::string want = format_frequency(settings_.uncore_hz);
  if (!real_backend) {
    modeled_uncore_hz_ = settings_.uncore_hz;
    note("RUBATO_UNCORE=" + want + ": back-end " + std::string(freq_->name()) +
         " changes no real frequency, so neither is the uncore; the power model charges the uncore at " + want);
    return;
  }
  std::string why;
  auto uncore = std::make_unique<UncoreFrequency>(topology_, settings_.state_dir);
  if (!uncore->usable(why) || !uncore->pin(settings_.uncore_hz, why)) {
    if (logs(LogLevel::warn))
      say("rubato: RUBATO_UNCORE=" + want + " cannot be applied: " + why + "; the uncore is left alone");
    note("RUBATO_UNCORE=" + want + " not applied: " + why);
    return;
  }
  modeled_uncore_hz_ = uncore->pinned_hz();
  note("uncore pinned at " + format_frequency(uncore->pinned_hz()) + " on " +
       std::to_string(topology_.uncore_domains.size()) + " domain(s); saved in " + uncore->state_file());
  uncore_ = std::move(uncore);
}

void LiveSession::start_controllers(ThrottleActuator* throttle) noexcept {
  if (controllers_ || !started_) return;
  start_host(throttle);
}

void LiveSession::start_host(ThrottleActuator* throttle) noexcept {
  if (controllers_) return;
  try {
    ControllerSetup setup = controller_setup_for(settings_, profile_, topology_, TargetKind::workers);
    setup.throttle = throttle;
    setup.clock = &clock_;
    setup.origin_ns = start_ns_;
    if (settings_.policy.min_energy && profile_) {
      setup.min_energy = min_energy_params(settings_, *profile_, engine_->ladder(), uncore_lever_levels());
      setup.engine = engine_.get();
      setup.uncore = uncore_lever_.get();
      setup.operating_point = &operating_point_;
      setup.model_label = "modeled:" + profile_->name;
      if (settings_.min_energy_closed_loop) closed_loop_setup(setup);
      for (const std::string& line :
           min_energy_profile_gaps(*profile_, uncore_lever_ && uncore_lever_->domains() > 0,
                                   settings_.min_energy_closed_loop, static_cast<bool>(setup.energy_j)))
        note(line);
    }
    std::vector<std::string> warnings;
    controllers_ = ControllerHost::start(std::move(setup), warnings);
    for (const auto& line : warnings) {
      if (logs(LogLevel::warn)) say("rubato: " + line);
      note(line);
    }
  } catch (const std::exception& e) {
    say(std::string("rubato: the efs / affinity / min-energy controllers could not start (") + e.what() +
        "); the run is " + std::string(to_string(settings_.policy.tempo)));
  }
}

// min-energy's closed loop: its parameters, the meter it reads during the run
// (RAPL where it reads, else the emulator's plant model; none on a dry run)
// and the task types' names.
void LiveSession::closed_loop_setup(ControllerSetup& setup) {
  const std::string measured = meter_ ? "measured:" + std::string(meter_->name())
                                      : "emulated meter:" + (energy_law() ? energy_law()->name : std::string("?"));
  setup.learner = learner_params(*setup.min_energy, settings_.control_interval_s, profile_->transition_latency_s,
                                 measured, setup.model_label);
  if (meter_) setup.energy_j = [this] { return meter_->read_j(); };
  else if (freq_->name() == "emulated") setup.energy_j = [this] { return emulated_energy_j(); };
  setup.learner->metered = static_cast<bool>(setup.energy_j);
  setup.task_type_names = [this] { return task_types_.names(); };
}

void LiveSession::fill_energy(Report& r, double wall_s) {
  std::optional<double> modeled;
  if (const MachineProfile* law = energy_law()) {
    PowerModel model(*law);
    RunActivity activity;
    activity.wall_s = wall_s;
    activity.uncore_hz = modeled_uncore_hz_;
    const TempoLadder& ladder = engine_->ladder();
    for (const WorkerReport& w : r.workers) {
      CoreActivity core;
      // Idle time is charged at the fastest frequency: HERMES leaves idle
      // workers' tempo alone ([HERMES] §3.4), and f_max is the upper bound.
      core.idle_hz = machine_max_hz_;
      for (Level l = 0; l < ladder.levels() && static_cast<std::size_t>(l) < w.busy_s_at_level.size(); ++l) {
        // A dry run changes nothing: the code ran at the machine's speed.
        const double hz = freq_->changes_speed() ? ladder.hz(l) : machine_max_hz_;
        const double busy = w.busy_s_at_level[static_cast<std::size_t>(l)];  // emulated stretch included
        if (busy > 0) core.busy_s_at_hz.emplace_back(hz, busy);
      }
      // slack: waiting while lowered is idle time at the slowest level.
      if (w.wait_slowed_s > 0 && freq_->changes_speed())
        core.idle_s_at_hz.emplace_back(ladder.hz(ladder.slowest()), w.wait_slowed_s);
      activity.cores.push_back(std::move(core));
    }
    fill_uncore_energy(activity, r);
    modeled = model.energy_j(activity);
    r.external["energy_modeled_j"] = *modeled;
    // The node's part of it (the uncore over the run; the rest is this process's cores), kept
    // apart so that merging ranks of one node counts it once (rubato compare).
    r.external["energy_modeled_uncore_j"] = model.uncore_energy_j(activity);
  }
  if (meter_) {
    r.energy = meter_->stop();
    if (r.energy.available) return;
    r.notes.push_back("measured energy unavailable: " + r.energy.why_not);
  }
  if (modeled) {
    r.energy.available = true;
    r.energy.joules = *modeled;
    r.energy.source = "modeled:" + energy_law()->name;
    if (settings_.plant.given)
      r.notes.push_back("energy modelled by the emulator's plant (RUBATO_PLANT: core " +
                        std::to_string(settings_.plant.core) + ", uncore " + std::to_string(settings_.plant.uncore) +
                        ", machine " + energy_law()->name + "); the policies believed profile " +
                        (profile_ ? profile_->name : std::string("(none)")));
    r.energy.why_not.clear();
  } else {
    r.energy.available = false;
    r.energy.why_not = "no energy meter usable (" + meter_note_ + ") and no machine profile";
  }
}

// min-energy: the uncore is charged at the levels it had over time where
// they were real (sysfs) or emulated; a dry run moved nothing, so the uncore
// ran as the hardware chose (charged as without min-energy).
void LiveSession::fill_uncore_energy(RunActivity& activity, Report& r) {
  if (!controllers_ || !uncore_lever_) return;
  if (uncore_lever_->changes_speed() || freq_->name() == "emulated") {
    activity.uncore_s_at_hz = controllers_->uncore_s_at_hz();
    return;
  }
  r.notes.push_back(
      "min-energy: dry run: the uncore levels chosen were recorded, not applied; the power model "
      "charges the uncore as the hardware ran it");
}

void LiveSession::write_report(Report& r) {
  if (settings_.report.empty()) return;
  const std::string path = expand_path_pattern(settings_.report, identity_.pid, identity_.host, identity_.rank);
  std::string why;
  std::FILE* f = open_output_file(path, why);
  if (!f) {
    say("rubato: cannot write the report to " + why + " (RUBATO_REPORT)");
    return;
  }
  const std::string text = to_json(r);
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const int err = errno;
  if (std::fclose(f) != 0 && ok) {
    say("rubato: cannot write the report to '" + path + "': " + std::strerror(errno) + " (RUBATO_REPORT)");
    return;
  }
  if (!ok) {
    say("rubato: cannot write the report to '" + path + "': " + std::strerror(err) + " (RUBATO_REPORT)");
    return;
  }
  if (logs(LogLevel::info)) say("rubato: report written to " + path);
}

const Report& LiveSession::finish() noexcept {
  {
    std::lock_guard<std::timed_mutex> lock(finish_mutex_);
    const int status = exit_status_.load(std::memory_order_relaxed);
    finish_locked("exit", status >= 0 ? std::optional<int>(status) : std::nullopt);
  }
  disarm_signal_report_once();  // after the lock: a report under way at a signal may wait for it
  return report_;
}

void LiveSession::finish_at_signal(void* self, int sig) noexcept {
  auto* session = static_cast<LiveSession*>(self);
  std::unique_lock<std::timed_mutex> lock(session->finish_mutex_, std::defer_lock);
  try {
    if (!lock.try_lock_for(std::chrono::seconds(2))) return;
  } catch (...) {
    return;
  }
  const char* name = signal_name(sig);
  char ended[32];
  if (name) std::snprintf(ended, sizeof ended, "signal %s", name);
  else std::snprintf(ended, sizeof ended, "signal %d", sig);
  // Where the default action follows, the process dies of `sig` (128 + sig,
  // as a shell says); the program's own handler decides for itself.
  session->finish_locked(ended, signal_ends_by_default_action(sig) ? std::optional<int>(128 + sig) : std::nullopt);
  lock.unlock();
  session->disarm_signal_report_once();  // from the reporting thread: it ends on its own
}

// The run's identity, back-end, profile and the parameters in force.
void LiveSession::fill_identity(Report& r, double wall_s) {
  r.tool_version = kVersion;
  r.host = identity_.host;
  r.rank = identity_.rank;
  r.pid = identity_.pid;
  r.started_at = identity_.started_at;
  r.command = identity_.command;
  r.runtime = info_.runtime;
  r.frontend = info_.frontend;
  r.steals_observed = info_.steals_observed;
  r.backend = std::string(freq_->name());
  r.backend_note = backend_note_ + "; energy: " + meter_note_;
  r.profile = profile_ ? profile_->name : "";
  r.binding = settings_.binding;
  r.wall_s = wall_s;
  r.parameters["thresholds"] = std::to_string(settings_.thresholds);
  r.parameters["profile_window"] = std::to_string(settings_.profile_window);
  r.parameters["profile_interval_s"] = std::to_string(settings_.profile_interval_s);
  r.parameters["min_dwell_s"] = std::to_string(settings_.min_dwell_s);
  if (freq_->name() == "emulated" || engine_->policy().guarded) {
    r.parameters["beta"] = std::to_string(beta_.beta);
    r.parameters["beta_source"] = beta_.source;
  }
  if (engine_->policy().slack) {
    r.parameters["slack_dwell_s"] = std::to_string(static_cast<double>(engine_->options().slack_dwell_ns) * 1e-9);
    r.parameters["raise_latency_s"] = std::to_string(static_cast<double>(engine_->options().raise_latency_ns) * 1e-9);
  }
}

// Each worker's core, and the emulator's stretch in its busy time.
void LiveSession::fill_workers(Report& r) {
  int workers_seen = 0;
  for (WorkerReport& w : r.workers) {
    ++workers_seen;
    w.core = w.id < settings_.max_workers ? worker_bound_[w.id].load(std::memory_order_relaxed) : -1;
    // The emulator's stretch is time the worker really ran at that level (as
    // a slower clock would have taken it): it belongs in busy_s_at_level,
    // and emulated_delay_s says how much of it was emulated.
    for (Level l = 0; l < kMaxLevels; ++l) {
      const double added = freq_->added_busy_s(w.id, l);
      if (added <= 0) continue;
      w.emulated_delay_s += added;
      w.busy_s += added;
      if (static_cast<std::size_t>(l) < w.busy_s_at_level.size())
        w.busy_s_at_level[static_cast<std::size_t>(l)] += added;
    }
  }
  r.workers_requested = workers_seen;
}

// Puts the machine back (frequencies, uncore limits); a failure is noted and said.
void LiveSession::restore_machine(Report& r) {
  RestoreOutcome restored = freq_->restore();
  if (uncore_) {
    const RestoreOutcome u = uncore_->restore();
    restored.failed.insert(restored.failed.end(), u.failed.begin(), u.failed.end());
  }
  if (uncore_lever_) {
    const RestoreOutcome u = uncore_lever_->restore();
    restored.failed.insert(restored.failed.end(), u.failed.begin(), u.failed.end());
  }
  if (modeled_uncore_hz_ > 0) r.parameters["uncore_hz"] = std::to_string(modeled_uncore_hz_);
  for (const auto& line : freq_->run_notes()) r.notes.push_back(line);
  for (const auto& line : restored.failed) {
    r.notes.push_back("restore failed: " + line);
    say("rubato: restore failed: " + line + " (run `rubato restore`)");
  }
}

void LiveSession::finish_locked(const char* ended, std::optional<int> exit_status) noexcept {
  if (finished_ || !started_) return;
  finished_ = true;
  try {
    Report& r = report_;
    r.ended = ended;
    r.exit_status = exit_status;
    sweeper_.stop();
    const double wall_s = static_cast<double>(clock_.now_ns() - start_ns_) * 1e-9;
    fill_from_engine(r, *engine_);
    fill_identity(r, wall_s);
    fill_workers(r);
    note_nothing_to_act_on(r);
    if (controllers_) {  // let every parked worker go and put moved threads back first
      controllers_->stop();
      controllers_->fill_report(r);
    }
    for (DomainReport& d : r.domains) {
      if (d.id < layout_.cpus_of_domain.size()) d.cpus = layout_.cpus_of_domain[d.id];
      d.applied_transitions = freq_->applied_transitions(d.id);
    }
    fill_energy(r, wall_s);
    if (freq_->name() == "emulated")
      r.notes.push_back("frequencies are emulated (busy work after each task segment); energy is a model");
    restore_machine(r);
    r.tool_errors = errors_.load(std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> nl(notes_mutex_);
      r.notes.insert(r.notes.end(), notes_.begin(), notes_.end());
    }
    write_report(r);
  } catch (const std::exception& e) {
    say(std::string("rubato: finishing the session failed: ") + e.what());
  } catch (...) {
    say("rubato: finishing the session failed");
  }
}

}  // namespace

namespace {

// Directories are checked where they are used, once: a missing profile
// directory falls back to the installed ones; a missing sysfs root is kept
// (never replaced by the real /sys: a fake tree's typo must not turn into
// control of the machine), so nothing is found there to control.
void check_directories(Settings& s) {
  std::error_code ec;
  if (!s.profile_dir.empty() && !std::filesystem::is_directory(s.profile_dir, ec)) {
    say("rubato: RUBATO_PROFILE_DIR='" + s.profile_dir.substr(0, 200) +
        "' is not a directory; accepted: a directory path; using the installed profile directories");
    s.profile_dir.clear();
  }
  if (!std::filesystem::is_directory(s.sysfs_root, ec))
    say("rubato: RUBATO_SYSFS_ROOT='" + s.sysfs_root.substr(0, 200) +
        "' is not a directory; accepted: an existing directory path; the sysfs and powercap back-ends find "
        "nothing there");
}

}  // namespace

std::unique_ptr<Session> Session::open(const Environment& env, SessionInfo info) {
  // A setuid/setgid or file-capability program: its environment comes from a
  // less privileged user, who must not choose what a privileged process reads
  // (RUBATO_CONFIG) or writes (RUBATO_REPORT, RUBATO_TRACE, RUBATO_STATE_DIR,
  // RUBATO_SYSFS_ROOT). rubato stays out (tests/RELIABILITY.md, "Security").
  if (::getauxval(AT_SECURE) != 0) {
    say("rubato: not started: this program runs in secure-execution mode (setuid, setgid or file capabilities), "
        "where RUBATO_* settings from the environment are not trusted");
    return nullptr;
  }
  try {
    Diagnostics diag;
    Settings settings = load_settings(env, diag);
    if (settings.log != "error")
      for (const auto& line : diag.lines) say(line);
    if (!settings.enabled) return nullptr;
    check_directories(settings);
    auto session = std::make_unique<LiveSession>(std::move(settings), std::move(info), env);
    std::string why;
    if (!session->start(why)) {
      say("rubato: cannot start (" + why + "); the program runs without rubato");
      return nullptr;
    }
    return session;
  } catch (const std::exception& e) {
    say(std::string("rubato: cannot start (") + e.what() + "); the program runs without rubato");
  } catch (...) {
    say("rubato: cannot start; the program runs without rubato");
  }
  return nullptr;
}

}  // namespace rubato
