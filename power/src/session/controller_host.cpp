#include "rubato/power/session/controller_host.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>

#include "rubato/core/affinity/affinity_controller.hpp"
#include "rubato/core/efs/efs_controller.hpp"
#include "rubato/power/counters/counter_source.hpp"
#include "rubato/power/os/periodic_thread.hpp"
#include "rubato/power/energy/power_model.hpp"
#include "rubato/power/os/thread_affinity.hpp"
#include "session/min_energy_runner.hpp"

namespace rubato {
namespace {

using counters::Metric;

std::string join(const std::vector<double>& v) {
  std::string out;
  for (double x : v) out += (out.empty() ? "" : ",") + std::to_string(x);
  return out;
}

// What efs needs to measure ([EFS] Eqs. 18-19).
constexpr Metric kEfsNeeds[] = {Metric::mem_accesses, Metric::mem_reads};

std::string missing_for_efs(const counters::MetricAvailability& a) {
  std::string out;
  for (Metric m : kEfsNeeds)
    if (!a.has(m)) out += (out.empty() ? "" : "; ") + std::string(to_string(m)) + ": " + a[m].note;
  return out;
}

// [EFS] Eq. 13's P0..Pn: the profile's own (Eq. 25 for the i5-2500), else
// derived from its core power: P0 = the uncore part, each active core its
// busy power at the fastest frequency.
std::vector<double> efs_power_table(const MachineProfile& p, std::size_t cores, bool& derived) {
  derived = p.active_cores_power_w.empty();
  if (!derived) return p.active_cores_power_w;
  const PowerModel model(p);
  const double per_core = model.busy_w(p.frequencies_hz.empty() ? 0 : p.frequencies_hz.front());
  std::vector<double> table{p.uncore_w};
  table.insert(table.end(), cores, per_core);
  return table;
}

// Cores that share the highest-level cache get the same group ([META] §IV.B).
affinity::CoreTopology core_topology(const std::vector<int>& cpus, const std::vector<CacheInfo>& caches) {
  affinity::CoreTopology t = affinity::CoreTopology::one_cache(static_cast<int>(cpus.size()));
  int top = 0;
  for (const CacheInfo& c : caches) top = std::max(top, c.level);
  int group = 0;
  for (const CacheInfo& c : caches) {
    if (c.level != top) continue;
    for (std::size_t i = 0; i < cpus.size(); ++i)
      if (std::find(c.cpus.begin(), c.cpus.end(), cpus[i]) != c.cpus.end()) t.cache_group[i] = group;
    ++group;
  }
  return t;
}

}  // namespace

struct ControllerHost::Impl {
  explicit Impl(ControllerSetup s) : setup(std::move(s)), clock(setup.clock ? *setup.clock : steady) {}

  ControllerSetup setup;
  SteadyClock steady;
  const Clock& clock;
  std::unique_ptr<CounterSet> counters;
  std::optional<CounterSourceOptions> deferred_counters;  // made at the first tick (min-energy alone)
  std::optional<efs::EfsController> efs;
  std::optional<affinity::AffinityController> affinity;
  std::string affinity_mode;
  std::unique_ptr<MinEnergyRunner> min_energy;
  ThreadAffinityKeeper keeper;
  PeriodicThread thread;
  std::atomic<bool> stopped{false};

  // Announcements from the targets' threads, taken by the controller thread.
  struct Announcement {
    std::uint64_t id;
    int pid, tid;
    bool started;
  };
  std::mutex pending_mutex;
  std::vector<Announcement> pending;
  std::map<std::uint64_t, std::pair<int, int>> announced;  // id -> (pid, tid) while started

  // The controller thread's own (read by fill_report after stop).
  std::map<std::uint64_t, CounterTarget> live;
  std::map<std::uint64_t, int> core_index;  // affinity: each target's core (kept across stop / start)
  std::vector<std::uint8_t> parked;         // by target id
  std::map<std::uint64_t, double> parked_since_s, requested_wait_s;
  std::vector<ThrottleEvent> events;
  std::vector<MigrationEvent> migrations;
  std::vector<std::string> notes;
  std::optional<std::uint64_t> last_tick_ns;
  std::uint64_t intervals = 0;
  bool ended = false;
  bool bind_failure_noted = false;

  double seconds(std::uint64_t ns) const { return static_cast<double>(ns - setup.origin_ns) * 1e-9; }
  void tick() noexcept;
  void absorb(double now_s);
  void start_target(std::uint64_t id, int pid, int tid, double now_s);
  void stop_target(std::uint64_t id, double now_s);
  void set_parked(std::uint64_t id, bool park, double now_s, std::string reason);
  void step_efs(const counters::CounterSample& sample, double now_s);
  void step_affinity(const counters::CounterSample& sample, double now_s);
  void step_controllers(double now_s);  // an interval after the first
  void make_deferred_counters() {
    const CounterSourceOptions wanted = std::move(*deferred_counters);
    deferred_counters.reset();
    counters = std::make_unique<CounterSet>(setup.counters, wanted);
    for (const auto& [id, target] : live) counters->track(target);
  }
  // After an error: working workers run as their tempo policy says again.
  void stop_min_energy() noexcept {
    if (min_energy && setup.engine) setup.engine->set_core_ceiling(0);
    min_energy.reset();
  }
  void end_decisions(double now_s, const std::string& why);
  // Make each controller when it can work here; else why not.
  std::string make_efs(const counters::MetricAvailability& avail);
  std::string make_affinity(const counters::MetricAvailability& avail);
  std::string make_min_energy();
};

ControllerSetup controller_setup_for(const Settings& settings, const std::optional<MachineProfile>& profile,
                                     const Topology& topology, TargetKind kind) {
  ControllerSetup s;
  s.policy = settings.policy;
  s.counters = settings.counters;
  s.interval_s = settings.control_interval_s;
  s.profile = profile;
  s.cpus = topology.cpus;
  s.caches = topology.caches;
  s.kind = kind;
  return s;
}

namespace {

// The metrics the policies in force need (the counter sources set up only those).
CounterSourceOptions counters_wanted(const PolicySpec& policy) {
  CounterSourceOptions options;
  if (policy.efs)
    options.want.insert(options.want.end(),
                        {Metric::mem_accesses, Metric::mem_writes, Metric::mem_reads, Metric::busy_s});
  if (policy.affinity)
    options.want.insert(options.want.end(),
                        {Metric::busy_s, Metric::cycles, Metric::instructions, Metric::llc_misses, Metric::fp_ops});
  return options;
}

// min-energy counts the memory transactions only where the profile relates
// them to the work's uncore share; otherwise no counter is set up for it.
CounterSourceOptions counters_wanted(const ControllerSetup& s) {
  CounterSourceOptions options = counters_wanted(s.policy);
  if (s.policy.min_energy && s.min_energy && s.min_energy->saturated_transaction_rate_per_s > 0)
    options.want.insert(options.want.end(), {Metric::mem_accesses, Metric::llc_misses});
  return options;
}

}  // namespace

std::string ControllerHost::Impl::make_efs(const counters::MetricAvailability& avail) {
  const ControllerSetup& s = setup;
  const std::size_t ncpu = std::max<std::size_t>(1, s.cpus.size());
  const std::string missing = missing_for_efs(avail);
  if (!missing.empty())
    return "needs the chip's memory accesses and each target's memory reads ([EFS] Eqs. 18-19): " + missing;
  if (!s.throttle) return "this front-end has no way to hold a worker back";
  if (!s.profile) return "no machine profile (RUBATO_PROFILE): the bus bandwidth µ and the power table are unknown";
  if (!(s.profile->memory_accesses_per_s > 0))
    return "machine profile '" + s.profile->name +
           "' gives no memory_accesses_per_s (µ, [EFS] Eq. 17); RUBATO_PROFILE=i5-2500 has one";
  efs::ControllerParams p;
  p.accesses_per_s = s.profile->memory_accesses_per_s;
  bool derived = false;
  p.power_w = efs_power_table(*s.profile, ncpu, derived);
  p.cores = static_cast<int>(ncpu);
  p.control_interval_s = s.interval_s;
  p.shared_queue = s.kind == TargetKind::programs;
  p.pooled_work = s.kind == TargetKind::workers;
  try {
    efs.emplace(std::move(p));
  } catch (const std::exception& e) {
    return e.what();
  }
  if (derived)
    notes.push_back("efs: profile '" + s.profile->name +
                    "' has no active_cores_power_w; Eq. 13's P0..Pn derived from its uncore and busy core power");
  return "";
}

std::string ControllerHost::Impl::make_affinity(const counters::MetricAvailability& avail) {
  const ControllerSetup& s = setup;
  if (!avail.has(Metric::busy_s) && !avail.has(Metric::cycles))
    return "needs each target's CPU time or busy cycles ([META] §IV.A): busy_s: " + avail[Metric::busy_s].note;
  if (!s.profile)
    return "no machine profile (RUBATO_PROFILE): moves cannot be weighed against predicted power ([META] §V.E)";
  const auto model = std::make_shared<PowerModel>(*s.profile);
  const double fastest = s.profile->frequencies_hz.empty() ? 0 : s.profile->frequencies_hz.front();
  // A core with nothing placed on it idles: profiles say nothing about gating.
  affinity::CorePowerFn power = [model, fastest](int, double hz, double utilisation) {
    const double f = hz > 0 ? hz : fastest;
    return model->idle_w(f) + utilisation * (model->busy_w(f) - model->idle_w(f));
  };
  affinity.emplace(core_topology(s.cpus, s.caches), std::move(power));
  const bool misses = avail.has(Metric::llc_misses) && avail.has(Metric::instructions);
  const bool fp = avail.has(Metric::fp_ops) && avail.has(Metric::instructions);
  affinity_mode = misses && fp ? "full" : misses ? "cache_only" : fp ? "fp_only" : "utilisation_only";
  if (!misses && !fp)
    notes.push_back(
        "affinity: utilisation-only mode: only CPU times are counted here (no cache-miss or FP counters), so the "
        "cache-contention and FP rules of [META] §IV.B-C are off; load balance and consolidation remain");
  return "";
}

std::string ControllerHost::Impl::make_min_energy() {
  const ControllerSetup& s = setup;
  if (!s.min_energy) return "no machine profile (RUBATO_PROFILE): there is no energy model to minimise";
  if (!s.engine) return "no engine to set the core level of";
  min_energy = std::make_unique<MinEnergyRunner>(*s.min_energy, *s.engine, s.uncore, s.operating_point, s.model_label,
                                                 s.learner, ClosedLoopSensors{s.energy_j, s.task_type_names});
  return "";
}

std::unique_ptr<ControllerHost> ControllerHost::start(ControllerSetup setup, std::vector<std::string>& warnings) {
  if (!setup.policy.efs && !setup.policy.affinity && !setup.policy.min_energy) return nullptr;
  auto impl = std::make_unique<Impl>(std::move(setup));
  Impl& h = *impl;
  const ControllerSetup& s = h.setup;
  const CounterSourceOptions wanted = counters_wanted(s);
  // min-energy alone starts with the program (Session::open): its counter
  // sources, whose set-up can take a second (likwid's probe is a forked
  // child), are made on the controller thread, and it decides from the
  // settings or the profile until they are there. efs and affinity need
  // them to know whether they can run at all.
  const bool defer = !s.policy.efs && !s.policy.affinity && !wanted.want.empty();
  h.counters = std::make_unique<CounterSet>(wanted.want.empty() || defer ? "none" : s.counters, wanted);
  if (defer) {
    h.deferred_counters = wanted;
    // likwid's probe is a forked child that may take a second, and the
    // program's exit would wait for it: auto asks the in-process sources.
    h.deferred_counters->auto_leaves_out = {"likwid"};
  }
  const counters::MetricAvailability& avail = h.counters->availability();
  const std::string fallback =
      s.policy.tempo == TempoPolicy::baseline ? "baseline" : std::string(to_string(s.policy.tempo)) + " alone";
  if (s.policy.efs)
    if (const std::string why = h.make_efs(avail); !why.empty())
      warnings.push_back("efs is off (" + why + "); the run is " + fallback);
  if (s.policy.affinity)
    if (const std::string why = h.make_affinity(avail); !why.empty())
      warnings.push_back("affinity is off (" + why + "); the run is " + fallback);
  if (s.policy.min_energy)
    if (const std::string why = h.make_min_energy(); !why.empty())
      warnings.push_back("min-energy is off (" + why + "); the run is " + fallback);
  if (!h.efs && !h.affinity && !h.min_energy) return nullptr;

  auto host = std::unique_ptr<ControllerHost>(new ControllerHost(std::move(impl)));
  const auto period = std::chrono::nanoseconds(static_cast<std::int64_t>(s.interval_s * 1e9));
  Impl* raw = host->impl_.get();
  host->impl_->thread.start(period, [raw] { raw->tick(); });
  return host;
}

ControllerHost::ControllerHost(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ControllerHost::~ControllerHost() { stop(); }

void ControllerHost::target_started(std::uint64_t id, int pid, int tid) noexcept {
  try {
    std::lock_guard<std::mutex> lock(impl_->pending_mutex);
    const auto it = impl_->announced.find(id);
    if (it != impl_->announced.end() && it->second == std::make_pair(pid, tid)) return;
    impl_->announced[id] = {pid, tid};
    impl_->pending.push_back({id, pid, tid, true});
  } catch (...) {
  }
}

void ControllerHost::target_stopped(std::uint64_t id) noexcept {
  try {
    std::lock_guard<std::mutex> lock(impl_->pending_mutex);
    if (!impl_->announced.erase(id)) return;
    impl_->pending.push_back({id, 0, 0, false});
  } catch (...) {
  }
}

void ControllerHost::Impl::set_parked(std::uint64_t id, bool park, double now_s, std::string reason) {
  if (parked.size() <= id) parked.resize(id + 1, 0);
  if ((parked[id] != 0) == park) return;
  parked[id] = park ? 1 : 0;
  if (park) {
    parked_since_s[id] = now_s;
  } else {
    requested_wait_s[id] += now_s - parked_since_s[id];
  }
  events.push_back({now_s, static_cast<WorkerId>(id), park, std::move(reason)});
}

void ControllerHost::Impl::start_target(std::uint64_t id, int pid, int tid, double now_s) {
  CounterTarget t{id, pid, tid, -1};
  if (affinity && !setup.cpus.empty()) {
    const auto [it, fresh] = core_index.try_emplace(id, static_cast<int>(id % setup.cpus.size()));
    std::string why;
    if (keeper.bind(pid, tid, setup.cpus[static_cast<std::size_t>(it->second)], why)) {
      t.cpu = setup.cpus[static_cast<std::size_t>(it->second)];
      affinity->remove_target(id);
      affinity->add_target(id, it->second);
    } else if (!bind_failure_noted) {
      bind_failure_noted = true;
      notes.push_back("affinity: cannot bind a target (" + why + "); it is left where the OS runs it");
    }
    (void)fresh;
  }
  live[id] = t;
  counters->track(t);
  if (efs) efs->add_target(id, now_s);
}

void ControllerHost::Impl::stop_target(std::uint64_t id, double now_s) {
  if (!live.erase(id)) return;
  counters->untrack(id);
  if (affinity) affinity->remove_target(id);
  if (efs) {
    efs->remove_target(id);
    set_parked(id, false, now_s, "efs: the target stopped");
  }
}

void ControllerHost::Impl::absorb(double now_s) {
  std::vector<Announcement> batch;
  {
    std::lock_guard<std::mutex> lock(pending_mutex);
    batch.swap(pending);
  }
  for (const Announcement& a : batch) {
    if (a.started) start_target(a.id, a.pid, a.tid, now_s);
    else stop_target(a.id, now_s);
  }
}

void ControllerHost::Impl::step_efs(const counters::CounterSample& sample, double now_s) {
  const efs::ControlStep step = efs->step(sample, now_s);
  if (step.changes.empty()) return;
  for (const efs::TargetChange& c : step.changes) set_parked(c.id, c.parked, now_s, c.reason);
  setup.throttle->apply(parked, efs->wait_bound_s());
}

void ControllerHost::Impl::step_affinity(const counters::CounterSample& sample, double now_s) {
  const auto decision = affinity->step(sample, {});
  if (!decision) return;
  const std::string reason = "affinity: " + std::string(to_string(decision->reason)) + " (predicted power " +
                             std::to_string(decision->power_before_w) + " W -> " +
                             std::to_string(decision->power_after_w) + " W, [META] §V.E)";
  for (const affinity::Migration& m : decision->moves) {
    const auto it = live.find(m.thread);
    if (it == live.end()) continue;
    const int from = setup.cpus[static_cast<std::size_t>(m.from)], to = setup.cpus[static_cast<std::size_t>(m.to)];
    std::string why;
    if (!keeper.bind(it->second.pid, it->second.tid, to, why)) {
      notes.push_back("affinity: a move failed (" + why + ")");
      continue;
    }
    core_index[m.thread] = m.to;
    it->second.cpu = to;
    counters->track(it->second);
    migrations.push_back({now_s, static_cast<WorkerId>(m.thread), from, to, reason});
  }
}

void ControllerHost::Impl::end_decisions(double now_s, const std::string& why) {
  ended = true;
  notes.push_back(why);
  if (!efs) return;
  for (std::size_t id = 0; id < parked.size(); ++id)
    if (parked[id]) set_parked(id, false, now_s, "efs: " + why);
  if (setup.throttle) setup.throttle->release_all();
}

// One interval's counters for every controller. A recorded series that ends
// ends efs's and affinity's decisions; min-energy goes on with the
// sensitivities of the settings or the profile.
void ControllerHost::Impl::step_controllers(double now_s) {
  const std::uint64_t now_ns = clock.now_ns();
  const double elapsed_s = static_cast<double>(now_ns - *last_tick_ns) * 1e-9;
  last_tick_ns = now_ns;
  if (!(elapsed_s > 0)) return;
  const bool was_exhausted = counters->exhausted();
  const counters::CounterSample sample = counters->sample(elapsed_s);
  ++intervals;
  if (!ended && efs) step_efs(sample, now_s);
  if (!ended && affinity) step_affinity(sample, now_s);
  if (min_energy) min_energy->step(was_exhausted ? nullptr : &sample, now_s);
  if (!ended && counters->exhausted()) {
    const std::string line = "the recorded counter series ended after " + std::to_string(intervals) + " intervals";
    if (efs || affinity) end_decisions(now_s, line + "; every target runs again and placements stay");
    else end_decisions(now_s, line + "; min-energy goes on with the settings' or the profile's sensitivities");
  }
}

void ControllerHost::Impl::tick() noexcept {
  try {
    const std::uint64_t now_ns = clock.now_ns();
    const double now_s = seconds(now_ns);
    absorb(now_s);
    if (deferred_counters) make_deferred_counters();
    if (ended && !min_energy) return;
    if (!last_tick_ns) {  // the first tick starts the first interval; min-energy decides without counters
      last_tick_ns = now_ns;
      if (min_energy) min_energy->step(nullptr, now_s);
      return;
    }
    step_controllers(now_s);
  } catch (const std::exception& e) {
    stop_min_energy();
    end_decisions(seconds(clock.now_ns()), std::string("controller stopped after an error: ") + e.what());
  } catch (...) {
    stop_min_energy();
    end_decisions(seconds(clock.now_ns()), "controller stopped after an error");
  }
}

void ControllerHost::stop() noexcept {
  Impl& h = *impl_;
  if (h.stopped.exchange(true)) return;
  h.thread.stop();
  const double now_s = h.seconds(h.clock.now_ns());
  try {
    for (std::size_t id = 0; id < h.parked.size(); ++id)
      if (h.parked[id]) h.set_parked(id, false, now_s, "efs: the run ended");
  } catch (...) {
  }
  if (h.setup.throttle) h.setup.throttle->release_all();
  if (h.min_energy) h.min_energy->finish(now_s);
  const std::size_t moved = h.keeper.moved_threads();
  const std::size_t restored = h.keeper.restore();
  if (moved > 0) try {
      h.notes.push_back("affinity: put back the CPU masks of " + std::to_string(restored) + " of " +
                        std::to_string(moved) + " threads moved (the others had ended)");
    } catch (...) {
    }
}

void ControllerHost::fill_report(Report& r) const {
  const Impl& h = *impl_;
  for (WorkerReport& w : r.workers) {
    const auto measured = h.setup.throttle ? h.setup.throttle->waited_s(w.id) : std::nullopt;
    const auto it = h.requested_wait_s.find(w.id);
    w.throttled_s = measured ? *measured : it != h.requested_wait_s.end() ? it->second : 0.0;
  }
  r.throttle_events.insert(r.throttle_events.end(), h.events.begin(), h.events.end());
  r.migrations.insert(r.migrations.end(), h.migrations.begin(), h.migrations.end());
  r.parameters["counters"] = h.counters->names();
  r.parameters["control_interval_s"] = std::to_string(h.setup.interval_s);
  r.parameters["control_intervals"] = std::to_string(h.intervals);
  if (h.efs) {
    r.parameters["efs_bus_accesses_per_s"] = std::to_string(h.efs->params().accesses_per_s);
    r.parameters["efs_power_w"] = join(h.efs->params().power_w);
    r.parameters["efs_cores"] = std::to_string(h.efs->params().cores);
    r.parameters["efs_actuator"] = h.setup.throttle ? std::string(h.setup.throttle->name()) : "";
    if (h.setup.throttle && !h.setup.throttle->per_target())
      r.notes.push_back("efs: " + std::string(h.setup.throttle->name()) +
                        " sets how many threads run, not which: throttled_s is the time the controller held a worker "
                        "slot back");
  }
  if (h.affinity) r.parameters["affinity_mode"] = h.affinity_mode;
  if (h.efs || h.affinity)
    for (const std::string& line : h.counters->availability().describe()) r.notes.push_back("counters: " + line);
  if (h.min_energy) {
    std::vector<std::string> lines;
    for (counters::Metric m : {Metric::mem_accesses, Metric::llc_misses}) {
      const counters::MetricStatus& st = h.counters->availability()[m];
      lines.push_back(std::string(to_string(m)) + ": " + (st.available ? "available (" + st.source + ")" : st.note));
    }
    h.min_energy->fill_report(r, lines);
  }
  r.notes.insert(r.notes.end(), h.notes.begin(), h.notes.end());
}

std::vector<std::pair<double, double>> ControllerHost::uncore_s_at_hz() const {
  return impl_->min_energy ? impl_->min_energy->uncore_s_at_hz() : std::vector<std::pair<double, double>>{};
}

}  // namespace rubato
