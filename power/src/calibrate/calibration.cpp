#include "rubato/power/calibrate/calibration.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <set>
#include <thread>

#include "rubato/power/energy/powercap_meter.hpp"
#include "rubato/power/frequency/sysfs_frequency.hpp"
#include "calibrate/calibration_probe.hpp"
#include "calibrate/sample_median.hpp"
#include "counters/proc_stat.hpp"
#include "os/sysfs_file.hpp"

namespace rubato {
namespace {

using Clock = std::chrono::steady_clock;

double settle_of(const CalibrationOptions& o) { return o.settle_s >= 0 ? o.settle_s : std::min(0.5, o.seconds / 4); }

void sleep_s(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(std::max(0.0, s))); }

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

// Alternating fastest/slowest timing-loop windows that decide the latency method.
constexpr int kLatencyProbePairs = 3;
constexpr double kLatencyProbeWindowS = 0.1;

double sd_of(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double m = mean_of(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size() - 1));
}

// The RAPL zones calibration reads: packages (top level) and dram subzones.
struct RaplZones {
  std::vector<PowercapZone> package, dram;
};

RaplZones rapl_zones(const std::string& root) {
  std::vector<std::string> problems;
  RaplZones z;
  for (auto& zone : find_powercap_zones(root, problems)) {
    if (!zone.counted) continue;
    (zone.name == "dram" ? z.dram : z.package).push_back(std::move(zone));
  }
  return z;
}

// Joules of `zones` since the previous call (a zone that cannot be read adds nothing).
double take_joules(ZoneEnergy& zones) {
  double joules = 0;
  std::string why;
  zones.take(joules, why);
  return joules;
}

ZoneEnergy started(std::vector<PowercapZone> zones) {
  ZoneEnergy energy(std::move(zones));
  std::string why;
  energy.reset(why);
  return energy;
}

std::string rapl_problem(const std::string& root) {
  const RaplZones z = rapl_zones(root);
  if (z.package.empty())
    return "RAPL: no package zone under " + root +
           "/class/powercap (as root: modprobe intel_rapl_msr — Intel, and AMD Zen on recent kernels; a VM "
           "usually has none)";
  for (const auto& zone : z.package) {
    const std::string f = zone.dir + "/energy_uj";
    const int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return "RAPL: " + f + " is not readable (root only since Linux 5.10: run as root)";
    ::close(fd);
  }
  return "";
}

// The CPUs to load: the option's, else every online CPU with a policy.
bool choose_cpus(const CalibrationOptions& o, const Topology& t, std::vector<int>& cpus, std::string& why) {
  cpus = o.cpus;
  if (cpus.empty())
    for (int c : t.cpus)
      if (t.clock_domain_of(c) >= 0) cpus.push_back(c);
  for (int c : cpus) {
    if (std::find(t.cpus.begin(), t.cpus.end(), c) == t.cpus.end()) {
      why = "cpu " + std::to_string(c) + " is not online";
      return false;
    }
    if (t.clock_domain_of(c) < 0) {
      why = "cpu " + std::to_string(c) + " has no cpufreq policy";
      return false;
    }
  }
  if (cpus.empty()) why = "no CPU with a cpufreq policy to load";
  return !cpus.empty();
}

}  // namespace

namespace {

// A window field's total per second, and the spread of its per-window rate.
double rate_of(const std::vector<CalibrationWindow>& windows, double CalibrationWindow::*field) {
  double sum = 0, seconds = 0;
  for (const auto& w : windows) {
    sum += w.*field;
    seconds += w.seconds;
  }
  return seconds > 0 ? sum / seconds : 0;
}

double rate_sd_of(const std::vector<CalibrationWindow>& windows, double CalibrationWindow::*field) {
  std::vector<double> rates;
  for (const auto& w : windows)
    if (w.seconds > 0) rates.push_back(w.*field / w.seconds);
  return sd_of(rates);
}

}  // namespace

double CalibrationSample::seconds() const {
  double s = 0;
  for (const auto& w : windows) s += w.seconds;
  return s;
}
double CalibrationSample::package_w() const { return rate_of(windows, &CalibrationWindow::package_j); }
double CalibrationSample::dram_w() const { return rate_of(windows, &CalibrationWindow::dram_j); }
double CalibrationSample::package_sd_w() const { return rate_sd_of(windows, &CalibrationWindow::package_j); }
double CalibrationSample::dram_sd_w() const { return rate_sd_of(windows, &CalibrationWindow::dram_j); }
double CalibrationSample::busy_cpus() const { return rate_of(windows, &CalibrationWindow::load_cpu_s); }
double CalibrationSample::system_busy_cpus() const { return rate_of(windows, &CalibrationWindow::system_busy_s); }
double CalibrationSample::own_cpus() const { return rate_of(windows, &CalibrationWindow::own_cpu_s); }
double CalibrationSample::others_cpus() const { return system_busy_cpus() - own_cpus(); }

std::string calibration_proc_stat(const std::string& sysfs_root) {
  std::filesystem::path sysfs(sysfs_root);
  if (!sysfs.has_filename()) sysfs = sysfs.parent_path();  // "DIR/root/"
  const std::filesystem::path beside = sysfs.parent_path() / "proc" / "stat";
  std::error_code ec;
  return std::filesystem::exists(beside, ec) ? beside.string() : "/proc/stat";
}

std::string calibration_host() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown-host";
  return buf;
}

std::string calibration_date() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

double calibration_duration_s(const CalibrationOptions& o, std::size_t cpus, std::size_t freqs) {
  const double per_point = o.seconds + settle_of(o);
  // Per frequency: idle, compute and spin at k = 1..n; then the latency
  // probes (alternating rate measurements, then each transition with a settle).
  const double latency = 2 * kLatencyProbePairs * (kLatencyProbeWindowS + 0.05) + 2.0 * o.latency_repeats * 0.15;
  return static_cast<double>(freqs) * static_cast<double>(1 + 2 * cpus) * per_point + latency;
}

double calibration_uncore_duration_s(const CalibrationOptions& o, std::size_t levels) {
  return static_cast<double>(2 * levels) * (o.seconds + settle_of(o));  // idle and all compute per level
}

std::vector<double> calibration_frequencies(const Topology& t) {
  std::vector<double> offered = t.available_hz();
  if (!t.clock_domains.empty() && t.clock_domains.front().available_hz.empty()) {
    // A pstate driver lists none (any frequency in range): five steps between its limits.
    const auto& p = t.clock_domains.front();
    offered.clear();
    for (int i = 0; i < 5 && p.max_hz > p.min_hz; ++i) offered.push_back(p.max_hz - (p.max_hz - p.min_hz) * i / 4.0);
  }
  return offered;
}

bool calibration_possible(const CalibrationOptions& o, std::string& why, bool need_rapl) {
  std::vector<std::string> problems;
  const Topology t = read_topology(o.sysfs_root);
  // Without RAPL the uncore's time shape can still be measured; without
  // both there is nothing a profile needs to measure.
  if (const std::string rapl = need_rapl ? rapl_problem(o.sysfs_root) : ""; !rapl.empty()) {
    std::string uncore_why;
    if (!CalibrationUncore(t, o.state_dir).usable(uncore_why))
      problems.push_back(rapl + "; nor can the uncore be timed instead (" + uncore_why + ")");
  }
  std::string freq_why;
  if (t.clock_domains.empty()) {
    problems.push_back("frequency control: no cpufreq policies under " + o.sysfs_root +
                       "/devices/system/cpu (a VM, or no cpufreq driver: as root, modprobe acpi-cpufreq, or boot "
                       "with intel_pstate / amd_pstate enabled)");
  } else {
    std::vector<int> cpus;
    SysfsFrequency probe(t, 1.0, o.state_dir, "calibrate");
    if (!choose_cpus(o, t, cpus, freq_why) || !probe.usable(freq_why))
      problems.push_back("frequency control: " + freq_why);
  }
  if (problems.empty()) return true;
  why = "cannot calibrate here: ";
  for (std::size_t i = 0; i < problems.size(); ++i) why += (i ? "; " : "") + problems[i];
  return false;
}

CalibrationFrequency::CalibrationFrequency(std::string sysfs_root, std::string state_dir)
    : topology_(read_topology(sysfs_root)), state_dir_(std::move(state_dir)) {}

CalibrationFrequency::~CalibrationFrequency() { end(); }

bool CalibrationFrequency::begin(const std::vector<int>& cpus, std::string& why) {
  DomainPlan plan;
  std::set<int> seen;
  for (int c : cpus) {
    const int p = topology_.clock_domain_of(c);
    if (p < 0) {
      why = "cpu " + std::to_string(c) + " has no cpufreq policy";
      return false;
    }
    if (seen.insert(p).second) plan.cpus_of_domain.push_back({c});
  }
  plan.max_workers = cpus.size();
  // min_dwell 1 s: the applier thread (unused here: set() writes directly)
  // wakes only every 10 ms and so disturbs the idle measurements least.
  sysfs_ = std::make_unique<SysfsFrequency>(topology_, 1.0, state_dir_, "calibrate");
  if (!sysfs_->usable(why) || !sysfs_->save(plan, why)) {
    sysfs_.reset();
    return false;
  }
  domains_ = plan.cpus_of_domain.size();
  return true;
}

bool CalibrationFrequency::set(double hz) {
  if (!sysfs_) return false;
  bool ok = true;
  for (std::size_t d = 0; d < domains_; ++d) ok = sysfs_->apply(static_cast<DomainId>(d), hz) && ok;
  return ok && !sysfs_->degraded();
}

double CalibrationFrequency::current_hz(int cpu) const {
  const int p = topology_.clock_domain_of(cpu);
  std::string text;
  if (p < 0 ||
      !read_sysfs_value(topology_.clock_domains[static_cast<std::size_t>(p)].policy_dir + "/scaling_cur_freq", text))
    return 0;
  return std::strtod(text.c_str(), nullptr) * 1e3;
}

RestoreOutcome CalibrationFrequency::end() noexcept {
  if (!sysfs_) return {};
  RestoreOutcome out = sysfs_->restore();
  return out;
}

const std::string& CalibrationFrequency::state_file() const {
  static const std::string none;
  return sysfs_ ? sysfs_->state_file() : none;
}

namespace {

// CPU time of this process, all its threads, s.
double own_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// How long one look at the machine lasts while a polluted point waits for quiet.
constexpr double kQuietProbeS = 0.2;

class Calibrator {
 public:
  Calibrator(const CalibrationOptions& o, CalibrationResult& r, CalibrationFrequency& freq, LoadThreads& load)
      : o_(o),
        r_(r),
        freq_(freq),
        load_(load),
        zones_(rapl_zones(o.sysfs_root)),
        package_(started(zones_.package)),
        dram_(started(zones_.dram)),
        t0_(Clock::now()) {}

  void say(const std::string& line) const {
    if (o_.progress) o_.progress(line);
  }
  // The uncore level the next points are measured at (0: not pinned).
  void at_uncore(double hz) { uncore_hz_ = hz; }
  // Every load thread blocked: the CPUs free for the uncore probe.
  void idle() { load_.set(0, LoadKind::idle); }
  bool stop_requested() const { return o_.stop_requested && o_.stop_requested(); }

  // One point: k CPUs running `loop` at the frequency already set.
  CalibrationSample measure(double hz, LoadKind loop, std::size_t k) {
    load_.set(k, loop);
    sleep_s(settle_of(o_));
    CalibrationSample s;
    s.hz = hz;
    s.loop = loop;
    s.k = k;
    const int windows = std::max(1, o_.windows);
    take_joules(package_);
    take_joules(dram_);
    auto cpu_before = load_.cpu_seconds();
    double busy_before = machine_busy_s(), own_before = own_cpu_s();
    auto before = Clock::now();
    for (int i = 0; i < windows; ++i) {
      sleep_s(o_.seconds / windows);
      const auto now = Clock::now();
      CalibrationWindow w;
      w.package_j = take_joules(package_);
      w.dram_j = take_joules(dram_);
      const auto cpu_now = load_.cpu_seconds();
      const double busy_now = machine_busy_s(), own_now = own_cpu_s();
      w.start_s = std::chrono::duration<double>(before - t0_).count();
      w.seconds = std::chrono::duration<double>(now - before).count();
      for (std::size_t t = 0; t < k && t < cpu_now.size(); ++t) w.load_cpu_s += cpu_now[t] - cpu_before[t];
      w.system_busy_s = busy_now - busy_before;
      w.own_cpu_s = own_now - own_before;
      s.windows.push_back(w);
      cpu_before = cpu_now;
      busy_before = busy_now;
      own_before = own_now;
      before = now;
    }
    s.cur_hz = freq_.current_hz(r_.cpus.front());
    s.uncore_hz = uncore_hz_;
    return s;
  }

  // Busy seconds of every CPU, anyone's: a neighbour on any CPU adds to the
  // package power (/proc/stat's first line: the sum rounded to ticks once).
  double machine_busy_s() const { return proc_stat_busy_s({}, r_.proc_stat); }

  bool polluted(const CalibrationSample& s) const { return s.others_cpus() > o_.quiet_limit_cpus; }

  // Looks at the machine (the load of the point still running) until other
  // processes use no more than the limit: true; false at `deadline`.
  bool wait_for_quiet(Clock::time_point deadline) const {
    while (Clock::now() < deadline) {
      const double busy0 = machine_busy_s(), own0 = own_cpu_s();
      const auto t0 = Clock::now();
      sleep_s(std::min(kQuietProbeS, std::chrono::duration<double>(deadline - t0).count()));
      const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
      const double others = (machine_busy_s() - busy0 - (own_cpu_s() - own0)) / dt;
      if (dt > 0 && others <= o_.quiet_limit_cpus) return true;
    }
    return false;
  }

  // The transition latency between the fastest and the slowest frequency.
  void latency() {
    const double fast = r_.freqs_hz.front(), slow = r_.freqs_hz.back();
    const int cpu = r_.cpus.front();
    load_.set(0, LoadKind::idle);
    std::vector<double> fast_rates, slow_rates;
    for (int pair = 0; pair < kLatencyProbePairs; ++pair) {
      freq_.set(fast);
      sleep_s(0.05);
      fast_rates.push_back(loop_rate(cpu, kLatencyProbeWindowS));
      freq_.set(slow);
      sleep_s(0.05);
      slow_rates.push_back(loop_rate(cpu, kLatencyProbeWindowS));
    }
    const bool timing = loop_follows_frequency(fast_rates, slow_rates, fast, slow);
    r_.loop_rate_fast = median_of(fast_rates);
    r_.loop_rate_slow = median_of(slow_rates);
    r_.latency_method = timing ? "timing loop" : "scaling_cur_freq readback";
    char rates[96];
    std::snprintf(rates, sizeof rates, " (loop %.3g/s at the fastest, %.3g/s at the slowest)", r_.loop_rate_fast,
                  r_.loop_rate_slow);
    say("transition latency by " + r_.latency_method + rates +
        (timing ? "" : ": the timing loop does not follow the frequency here"));
    for (int i = 0; i < o_.latency_repeats; ++i) {
      for (const bool down : {true, false}) {
        const double from = down ? fast : slow, to = down ? slow : fast;
        freq_.set(from);
        sleep_s(0.05);
        TransitionSample t{from, to, -1};
        if (timing) {
          const double from_rate = down ? r_.loop_rate_fast : r_.loop_rate_slow;
          const double to_rate = down ? r_.loop_rate_slow : r_.loop_rate_fast;
          t.seconds = timed_transition(
              cpu, [&] { return freq_.set(to); }, from_rate, to_rate, 0.5);
        } else {
          t.seconds = readback(cpu, to);
        }
        r_.transitions.push_back(t);
      }
    }
  }

 private:
  // From just before the write until scaling_cur_freq shows `hz` (within 1 %).
  double readback(int cpu, double hz) {
    const auto t0 = Clock::now();
    if (!freq_.set(hz)) return -1;
    while (std::chrono::duration<double>(Clock::now() - t0).count() < 1.0) {
      const double cur = freq_.current_hz(cpu);
      if (std::fabs(cur - hz) <= 0.01 * hz) return std::chrono::duration<double>(Clock::now() - t0).count();
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    return -1;
  }

  const CalibrationOptions& o_;
  CalibrationResult& r_;
  CalibrationFrequency& freq_;
  LoadThreads& load_;
  RaplZones zones_;
  ZoneEnergy package_, dram_;
  Clock::time_point t0_;
  double uncore_hz_ = 0;
};

bool fit_result(CalibrationResult& r, std::string& error) {
  std::vector<FitPoint> points;
  for (const auto& s : r.samples) {
    const auto f = std::find(r.freqs_hz.begin(), r.freqs_hz.end(), s.hz) - r.freqs_hz.begin();
    FitPoint p;
    p.x = s.loop == LoadKind::idle ? 0 : s.busy_cpus();
    p.y = s.package_w();
    p.group = r.group(static_cast<std::size_t>(f), s.loop);
    const double sd = s.package_sd_w();
    p.var = s.windows.size() > 0 ? sd * sd / static_cast<double>(s.windows.size()) : 0;
    points.push_back(p);
  }
  return fit_shared_intercept(points, 2 * r.freqs_hz.size(), r.fit, error);
}

std::string fixed2(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", s);
  return buf;
}

// Points measured beside other work: set aside and measured again (a
// warning), or kept with allow_noisy (the result is unreliable, and says why).
void check_pollution(CalibrationResult& r, const CalibrationOptions& o) {
  std::size_t polluted = 0;
  double most_others = 0;
  for (const auto* points : {&r.samples, &r.uncore_samples})
    for (const auto& s : *points)
      if (s.others_cpus() > o.quiet_limit_cpus) {
        ++polluted;
        most_others = std::max(most_others, s.others_cpus());
      }
  if (const std::size_t aside = r.set_aside.size() + r.uncore_set_aside.size(); aside > 0)
    r.warnings.push_back(std::to_string(aside) + " measurements set aside: other processes used more than " +
                         fixed2(o.quiet_limit_cpus) + " CPUs during them (" + r.proc_stat +
                         " less this process's CPU time); their points were "
                         "measured again once the machine was quiet");
  if (polluted == 0) return;
  r.unreliable = std::to_string(polluted) + " of " + std::to_string(r.samples.size() + r.uncore_samples.size()) +
                 " points were measured while other processes used up to " + fixed2(most_others) +
                 " CPUs (more than the limit " + fixed2(o.quiet_limit_cpus) + ", after waiting up to " +
                 seconds_text(o.quiet_wait_s) +
                 " for quiet): their power is in those points and in the fit; written with --allow-noisy";
  r.warnings.push_back("UNRELIABLE: " + r.unreliable);
}

// What may have spoilt points, one line per kind (the samples file has the detail).
void check_samples(CalibrationResult& r, const CalibrationOptions& o) {
  std::size_t starved = 0, off_freq = 0;
  double least = 1;
  for (const auto& s : r.samples) {
    if (s.loop != LoadKind::idle && s.busy_cpus() < 0.9 * static_cast<double>(s.k)) {
      ++starved;
      least = std::min(least, s.busy_cpus() / static_cast<double>(s.k));
    }
    if (s.cur_hz > 0 && std::fabs(s.cur_hz - s.hz) > 0.05 * s.hz) ++off_freq;
  }
  const std::string of = " of " + std::to_string(r.samples.size()) + " points: ";
  char buf[64];
  if (starved) {
    std::snprintf(buf, sizeof buf, "%.0f %%", 100 * least);
    r.warnings.push_back(std::to_string(starved) + of + "the load threads got less than 90 % of their CPUs (down to " +
                         buf + "; other work on the machine?); the fit uses the CPU time they got");
  }
  check_pollution(r, o);
  if (off_freq)
    r.warnings.push_back(std::to_string(off_freq) + of +
                         "scaling_cur_freq differed from the frequency set by more than 5 % (turbo, thermal or "
                         "power limits?)");
}

}  // namespace

namespace {

// The CPUs and frequencies to measure (the options', checked against the
// machine, else all), into `r`; false + `error` when they cannot be.
bool plan_points(const CalibrationOptions& o, const Topology& t, CalibrationResult& r, std::string& error) {
  if (!choose_cpus(o, t, r.cpus, error)) return false;
  r.online_cpus = static_cast<int>(t.cpus.size());
  for (const auto& p : t.clock_domains)
    r.cpus_per_domain = std::max<int>(r.cpus_per_domain, static_cast<int>(p.cpus.size()));
  // The frequencies: the option's (each must be one the hardware offers), else all.
  const std::vector<double> offered = calibration_frequencies(t);
  for (double hz : o.freqs_hz)
    if (std::none_of(offered.begin(), offered.end(), [&](double f) { return std::fabs(f - hz) <= 0.005 * f; }) &&
        !(t.clock_domains.front().available_hz.empty() && hz >= t.clock_domains.front().min_hz &&
          hz <= t.clock_domains.front().max_hz)) {
      error = std::to_string(std::lround(hz / 1e6)) + " MHz is not a frequency this machine offers";
      return false;
    }
  r.freqs_hz = o.freqs_hz.empty() ? offered : o.freqs_hz;
  std::sort(r.freqs_hz.begin(), r.freqs_hz.end(), std::greater<>());
  r.freqs_hz.erase(std::unique(r.freqs_hz.begin(), r.freqs_hz.end()), r.freqs_hz.end());
  if (r.freqs_hz.size() < 2) {
    error = "need at least two frequencies to calibrate (have " + std::to_string(r.freqs_hz.size()) + ")";
    return false;
  }
  r.has_dram = !rapl_zones(o.sysfs_root).dram.empty();
  return true;
}

// "2400 MHz, compute on 2 CPUs": a point, in messages.
std::string point_name(double hz, LoadKind loop, std::size_t k) {
  return std::to_string(std::lround(hz / 1e6)) + " MHz, " +
         (loop == LoadKind::idle
              ? std::string("every CPU idle")
              : std::string(to_string(loop)) + " on " + std::to_string(k) + (k == 1 ? " CPU" : " CPUs"));
}

// Where a point goes: the core points (r.samples) or the uncore ladder's.
struct PointLists {
  std::vector<CalibrationSample>& fitted;
  std::vector<CalibrationSample>& set_aside;
};

// One point into `into`, measured again (the polluted measurement set
// aside) while other processes pollute it and the machine becomes quiet
// within quiet_wait_s; false + `error` when it stays polluted and allow_noisy
// is off, or when a stop was requested.
bool measure_point(Calibrator& c, const CalibrationOptions& o, PointLists into, double hz, LoadKind loop, std::size_t k,
                   std::string& error) {
  if (c.stop_requested()) {
    error = "interrupted";
    return false;
  }
  CalibrationSample s = c.measure(hz, loop, k);
  if (c.polluted(s)) {
    c.say(point_name(hz, loop, k) + ": other processes used " + fixed2(s.others_cpus()) +
          " CPUs; measuring it again once the machine is quiet (waiting at most " + seconds_text(o.quiet_wait_s) +
          ", --quiet-wait)");
    const auto since = Clock::now();
    const auto deadline =
        since + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.quiet_wait_s));
    while (c.polluted(s) && c.wait_for_quiet(deadline)) {
      into.set_aside.push_back(std::move(s));
      s = c.measure(hz, loop, k);
    }
    if (!c.polluted(s))
      c.say(point_name(hz, loop, k) + ": measured again, quiet, after " +
            seconds_text(std::round(std::chrono::duration<double>(Clock::now() - since).count() * 10) / 10));
  }
  if (c.polluted(s) && !o.allow_noisy) {
    error = "the machine did not become quiet: at " + point_name(hz, loop, k) + " other processes used " +
            fixed2(s.others_cpus()) + " CPUs (limit " + fixed2(o.quiet_limit_cpus) + ", --quiet-limit) after " +
            seconds_text(o.quiet_wait_s) +
            " of waiting (--quiet-wait); no profile written. Stop the other work and run it again, or "
            "--allow-noisy writes the profile marked unreliable";
    return false;
  }
  into.fitted.push_back(std::move(s));
  return true;
}

// Every point at every frequency, each frequency summed up in one progress
// line; false + `error` when a frequency cannot be set or a point stays polluted.
bool measure_points(Calibrator& c, const CalibrationOptions& o, CalibrationFrequency& freq, CalibrationResult& r,
                    std::string& error) {
  for (double hz : r.freqs_hz) {
    if (!freq.set(hz)) {
      error = "setting " + std::to_string(std::lround(hz / 1e6)) + " MHz failed";
      return false;
    }
    const PointLists core{r.samples, r.set_aside};
    if (!measure_point(c, o, core, hz, LoadKind::idle, 0, error)) return false;
    for (LoadKind loop : {LoadKind::compute, LoadKind::spin})
      for (std::size_t k = 1; k <= r.cpus.size(); ++k)
        if (!measure_point(c, o, core, hz, loop, k, error)) return false;
    const auto& idle = r.samples[r.samples.size() - 1 - 2 * r.cpus.size()];
    char line[160];
    std::snprintf(line, sizeof line, "%.0f MHz: idle %.2f W, all compute %.2f W, all spin %.2f W", hz / 1e6,
                  idle.package_w(), r.samples[r.samples.size() - 1 - r.cpus.size()].package_w(),
                  r.samples.back().package_w());
    c.say(line);
  }
  return true;
}

// The uncore power ladder: at the fastest core frequency, per uncore level
// (every domain pinned), every CPU idle and every measured CPU in the compute
// loop; each level summed up in one progress line. false + `error` as
// measure_points.
bool measure_uncore_ladder(Calibrator& c, const CalibrationOptions& o, CalibrationUncore& uncore, CalibrationResult& r,
                           std::string& error) {
  const PointLists ladder{r.uncore_samples, r.uncore_set_aside};
  const double hz = r.uncore_core_hz;
  for (double fu : r.uncore_hz) {
    if (!uncore.set(fu, error)) return false;
    c.at_uncore(fu);
    if (!measure_point(c, o, ladder, hz, LoadKind::idle, 0, error) ||
        !measure_point(c, o, ladder, hz, LoadKind::compute, r.cpus.size(), error))
      return false;
    const CalibrationSample &idle = r.uncore_samples[r.uncore_samples.size() - 2], &loaded = r.uncore_samples.back();
    UncoreLadderPoint p;
    p.hz = fu;
    p.idle_w = idle.package_w();
    p.idle_se_w = idle.package_sd_w() / std::sqrt(static_cast<double>(std::max<std::size_t>(1, idle.windows.size())));
    p.loaded_w = loaded.package_w();
    p.busy_cpus = loaded.busy_cpus();
    p.per_busy_cpu_w = p.busy_cpus > 0 ? (p.loaded_w - p.idle_w) / p.busy_cpus : 0;
    r.uncore_ladder.push_back(p);
    if (const double cur = uncore.current_hz(); cur > 0 && std::fabs(cur - fu) > 0.05 * fu)
      r.warnings.push_back("uncore at " + std::to_string(std::lround(fu / 1e6)) + " MHz: current_freq_khz showed " +
                           std::to_string(std::lround(cur / 1e6)) + " MHz (the hardware did not follow the limits?)");
    char line[160];
    std::snprintf(line, sizeof line, "uncore %.0f MHz (core %.0f MHz): idle %.2f W, all compute %.2f W", fu / 1e6,
                  hz / 1e6, p.idle_w, p.loaded_w);
    c.say(line);
  }
  c.at_uncore(0);
  return true;
}

}  // namespace

namespace {

// What this machine lets calibration measure: "" or why not (which, and how to get it).
struct Measurable {
  std::string power;   // RAPL
  std::string uncore;  // intel_uncore_frequency, settable
};

// The fields not measured and why, into r.not_measured, each group said once.
void note_not_measured(Calibrator& c, const Measurable& m, CalibrationResult& r) {
  if (!m.power.empty()) {
    const std::string why =
        m.power + "; the profile's power figures are profile " + r.power_from_name + "'s, each source saying so";
    for (const char* f : {"core_power", "uncore_w"}) r.not_measured[f] = why;
    if (m.uncore.empty()) r.not_measured["uncore_power"] = m.power;
    c.say("not measured: package power (core_power, uncore_w, uncore_power): " + why);
  }
  if (!m.uncore.empty()) {
    const std::string why = "the uncore cannot be set here: " + m.uncore;
    for (const char* f : {"uncore_power", "memory_bandwidth_knee_hz", "memory_transaction_rate_saturated_per_s"})
      r.not_measured[f] = r.not_measured.count(f) ? r.not_measured[f] + "; " + why : why;
    c.say(
        "not measured: the uncore power ladder, the memory-bandwidth knee and the saturated memory-transaction "
        "rate: " +
        why);
  }
}

// What the probe left unmeasured (a flat curve, a failed probe, no counters), said once each.
void note_probe_outcome(Calibrator& c, CalibrationResult& r) {
  const UncoreProbeResult& p = r.probe;
  std::string knee_why;
  if (!p.failed.empty()) {
    knee_why = "the probe failed: " + p.failed;
  } else if (p.fit.flat) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "the probe's time did not change with the uncore level (at most %+.1f %% between %.0f and %.0f "
                  "MHz): no uncore sensitivity measurable, so no knee",
                  100 * p.fit.largest_slowdown, r.uncore_hz.front() / 1e6, r.uncore_hz.back() / 1e6);
    knee_why = buf;
  }
  if (!knee_why.empty()) {
    r.not_measured["memory_bandwidth_knee_hz"] = knee_why;
    r.not_measured["memory_transaction_rate_saturated_per_s"] =
        "no probe uncore share to relate a rate to: " + knee_why;
    c.say("not measured: the memory-bandwidth knee: " + knee_why);
    return;
  }
  if (p.rates_per_s.empty()) {
    r.not_measured["memory_transaction_rate_saturated_per_s"] = p.no_rate;
    c.say("not measured: the saturated memory-transaction rate: " + p.no_rate);
  }
}

// Gives the machine back (load stopped, uncore then cpufreq restored); false
// + `error` when something could not be put back.
bool give_back(LoadThreads& load, CalibrationUncore* uncore, CalibrationFrequency& freq, CalibrationResult& r,
               std::string& error) {
  load.stop();
  RestoreOutcome restored = uncore ? uncore->end() : RestoreOutcome{};
  const RestoreOutcome core = freq.end();
  restored.failed.insert(restored.failed.end(), core.failed.begin(), core.failed.end());
  for (const auto& f : restored.failed) r.warnings.push_back("restore: " + f);
  if (restored.ok()) return true;
  error = "could not restore every cpufreq and uncore setting (state kept for `rubato restore`)";
  return false;
}

// The uncore part: the ladder (with RAPL) and the probe, at the fastest core frequency.
bool measure_uncore(Calibrator& c, const CalibrationOptions& o, const Topology& t, CalibrationFrequency& freq,
                    CalibrationUncore& uncore, CalibrationResult& r, std::string& error) {
  r.uncore_core_hz = r.freqs_hz.front();
  if (!freq.set(r.uncore_core_hz)) {
    error = "setting " + std::to_string(std::lround(r.uncore_core_hz / 1e6)) + " MHz failed";
    return false;
  }
  if (r.measured_power && !measure_uncore_ladder(c, o, uncore, r, error)) return false;
  c.idle();
  if (!measure_uncore_probe(
          o, t, uncore, r, [&](const std::string& line) { c.say(line); }, error))
    return false;
  note_probe_outcome(c, r);
  return true;
}

// The plan: the result's identity, the points, the uncore levels where the
// uncore can be set, where the power figures come from. nullptr uncore: not
// measured (m.uncore says why). false + `error` on a plan that cannot run.
bool plan_calibration(const CalibrationOptions& o, CalibrationFrequency& freq, CalibrationResult& r, Measurable& m,
                      std::unique_ptr<CalibrationUncore>& uncore, std::string& error) {
  r.host = calibration_host();
  r.date = calibration_date();
  r.cpu_model = read_cpu_model();
  r.sysfs_root = o.sysfs_root;
  r.seconds = o.seconds;
  r.proc_stat = calibration_proc_stat(o.sysfs_root);
  if (!plan_points(o, freq.topology(), r, error)) return false;
  m = Measurable{rapl_problem(o.sysfs_root), ""};
  uncore = std::make_unique<CalibrationUncore>(freq.topology(), o.state_dir);
  if (!uncore->usable(m.uncore)) uncore.reset();
  if (!uncore && o.uncore_asked) {
    error = "--uncore-freqs / --uncore-probe: the uncore cannot be set here: " + m.uncore;
    return false;
  }
  if (uncore && !plan_uncore_levels(o.uncore_hz, uncore->slowest_hz(), uncore->fastest_hz(), r.uncore_hz, error))
    return false;
  r.measured_power = m.power.empty();
  if (r.measured_power) return true;
  if (!o.power_from) {
    error = m.power + "; and no profile to take the power figures from (RUBATO_PROFILE)";
    return false;
  }
  r.power_from = o.power_from;
  r.power_from_name = o.power_from_name;
  return true;
}

// The first progress line: what is measured and about how long it takes.
void announce(Calibrator& c, const CalibrationOptions& o, const CalibrationResult& r, bool uncore) {
  const std::size_t power_freqs = r.measured_power ? r.freqs_hz.size() : 0;
  const double power_s = calibration_duration_s(o, r.cpus.size(), power_freqs) +
                         (r.measured_power && uncore ? calibration_uncore_duration_s(o, r.uncore_hz.size()) : 0);
  char per_point[32];
  std::snprintf(per_point, sizeof per_point, "%.2f", o.seconds);
  c.say("calibrating " + std::to_string(r.cpus.size()) + " CPUs x " + std::to_string(power_freqs) + " frequencies" +
        (uncore ? " and " + std::to_string(r.uncore_hz.size()) + " uncore levels" : std::string()) + ", " + per_point +
        " s per point: about " + std::to_string(std::lround(power_s)) + " s" +
        (uncore ? ", then the uncore probe (" + std::to_string(r.uncore_hz.size()) + " levels x " +
                      std::to_string(o.probe_rounds) + " rounds)"
                : std::string()));
}

}  // namespace

std::optional<CalibrationResult> calibrate(const CalibrationOptions& o, std::string& error) {
  if (!(o.seconds > 0)) {
    error = "the measurement time must be positive";
    return std::nullopt;
  }
  if (!(o.quiet_limit_cpus > 0) || !(o.quiet_wait_s >= 0)) {
    error = "the quiet limit must be positive and the quiet wait not negative";
    return std::nullopt;
  }
  if (!calibration_possible(o, error)) return std::nullopt;
  CalibrationResult r;
  CalibrationFrequency freq(o.sysfs_root, o.state_dir);
  Measurable m;
  std::unique_ptr<CalibrationUncore> uncore;
  if (!plan_calibration(o, freq, r, m, uncore, error)) return std::nullopt;

  LoadThreads load;
  if (!load.start(r.cpus, error)) return std::nullopt;
  if (!freq.begin(r.cpus, error)) return std::nullopt;
  Calibrator c(o, r, freq, load);
  announce(c, o, r, uncore != nullptr);
  note_not_measured(c, m, r);
  if (r.proc_stat != "/proc/stat") c.say("the machine's load from " + r.proc_stat + " (beside the sysfs root)");
  const bool measured = (!r.measured_power || measure_points(c, o, freq, r, error)) &&
                        (!uncore || measure_uncore(c, o, freq.topology(), freq, *uncore, r, error));
  if (!measured) {
    std::string ignored;
    give_back(load, uncore.get(), freq, r, ignored);
    return std::nullopt;
  }
  c.latency();
  if (!give_back(load, uncore.get(), freq, r, error)) return std::nullopt;
  if (r.measured_power && !fit_result(r, error)) return std::nullopt;
  check_samples(r, o);
  return r;
}

}  // namespace rubato
