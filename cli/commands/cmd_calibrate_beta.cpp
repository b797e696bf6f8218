// `rubato calibrate --beta`: times a program at the fastest setting, at the
// slowest core frequency and — where intel_uncore_frequency lets rubato set
// the uncore — at the slowest uncore frequency, in rounds whose order
// rotates, and turns each round's slowdowns into the model's shares
// (rubato/core/model/time_model.hpp):
//   b_c = (T_core_slow / T_fast − 1) / (fc_fast / fc_slow − 1)
//   b_u = (T_uncore_slow / T_fast − 1) / (g(fu_slow) − 1)
// with g the model's uncore stretch (the profile's memory-bandwidth knee,
// plain fu_fast / fu_slow without one). Every setting is recorded first and
// restored (core and uncore), also at signals and by `rubato restore`.
#include "commands/cmd_calibrate_beta.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "analysis/stats.hpp"
#include "experiment/process.hpp"
#include "rubato/core/model/time_model.hpp"
#include "rubato/power/frequency/uncore_frequency.hpp"
#include "rubato/power/machine/profile.hpp"
#include "rubato/power/machine/topology.hpp"

namespace rubato::cli {

namespace {

// A setting the program is timed at; uncore_hz 0: the uncore left as it is.
struct Setting {
  double core_hz = 0;
  double uncore_hz = 0;
};

// The uncore as this measurement moves it: `driver` set when the machine has
// intel_uncore_frequency domains rubato can write and the model can tell an
// uncore slowdown from the rest (stretch g > 1 at the slowest uncore level).
struct UncoreLever {
  std::unique_ptr<UncoreFrequency> driver;
  double fast_hz = 0, slow_hz = 0;
  double stretch = 1;   // g(slow_hz)
  std::string model;    // where g comes from
  std::string missing;  // why the uncore is not measured
};

std::string ghz(double hz) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GHz", hz / 1e9);
  return buf;
}

// The profile's knee (RUBATO_PROFILE), or none: plain fu_fast / fu_slow.
void uncore_model(const CalibrateOptions& o, double core_fast_hz, UncoreLever& u) {
  std::string error;
  const ChosenProfile chosen = resolve_profile(o.profile, profile_search_dirs(o.profile_dir), error);
  const double knee = chosen.profile ? chosen.profile->memory_bandwidth_knee_hz.value_or(0) : 0;
  u.stretch = uncore_time_stretch(u.slow_hz, ReferenceSetting{core_fast_hz, u.fast_hz, knee});
  u.model = knee > 0 ? "the memory-bandwidth knee " + ghz(knee) + " of profile " + chosen.name
                     : "fu_fast / fu_slow (profile " + (chosen.profile ? chosen.name : o.profile) +
                           " gives no memory-bandwidth knee)";
}

UncoreLever uncore_lever(const CalibrateOptions& o, const Topology& t, double core_fast_hz) {
  UncoreLever u;
  if (t.uncore_domains.empty()) {
    u.missing = "no intel_uncore_frequency domains here";
    return u;
  }
  // The range every domain offers.
  u.fast_hz = t.uncore_domains.front().initial_max_hz;
  u.slow_hz = t.uncore_domains.front().initial_min_hz;
  for (const auto& d : t.uncore_domains) {
    u.fast_hz = std::min(u.fast_hz, d.initial_max_hz);
    u.slow_hz = std::max(u.slow_hz, d.initial_min_hz);
  }
  uncore_model(o, core_fast_hz, u);
  if (!(u.stretch > 1.01)) {
    u.missing = "the model's uncore stretch at " + ghz(u.slow_hz) + " is 1 (" + u.model +
                "): an uncore slowdown cannot be told from the rest";
    return u;
  }
  auto driver = std::make_unique<UncoreFrequency>(t, o.measure.state_dir);
  std::string why;
  if (!driver->usable(why) || !driver->save(why)) {
    u.missing = "the uncore cannot be set here: " + why;
    return u;
  }
  u.driver = std::move(driver);
  return u;
}

bool apply(CalibrationFrequency& freq, UncoreLever& u, const Setting& s, std::string& error) {
  if (!freq.set(s.core_hz)) {
    error = "setting " + std::to_string(std::lround(s.core_hz / 1e6)) + " MHz failed";
    return false;
  }
  if (!u.driver || !(s.uncore_hz > 0)) return true;
  for (std::size_t d = 0; d < u.driver->domains(); ++d) {
    std::string why;
    if (u.driver->set_domain(d, s.uncore_hz, why) <= 0) {
      error = "setting the uncore to " + ghz(s.uncore_hz) + " failed: " + why;
      return false;
    }
  }
  return true;
}

// One run of the program at `s`; false (and `error`) when it failed.
bool timed_run(const CalibrateOptions& o, CalibrationFrequency& freq, UncoreLever& u, const Setting& s, double& seconds,
               std::string& error) {
  if (!apply(freq, u, s, error)) return false;
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const ChildResult c = run_child(o.program, {}, "/dev/null", "/dev/null", o.timeout_s);
  if (!c.started || c.exit_status != 0 || c.timed_out || c.interrupted) {
    error = !c.started      ? c.error
            : c.interrupted ? std::string("interrupted")
            : c.timed_out   ? std::string("the program timed out")
                            : "the program failed (exit status " + std::to_string(c.exit_status) + ")";
    return false;
  }
  seconds = c.elapsed_s;
  return true;
}

// Per round: the time at each setting (index as in `settings`) and the shares.
struct Rounds {
  std::vector<std::vector<double>> times;  // [setting][round]
  std::vector<double> core, uncore;
};

// One warm-up run at the fastest setting, then --runs rounds, each round's
// order starting one setting later (fast-slow, slow-fast, ... with two), so
// that a drift of the machine cancels within a round.
bool measure_rounds(const CalibrateOptions& o, CalibrationFrequency& freq, UncoreLever& u,
                    const std::vector<Setting>& settings, Rounds& r, std::string& error) {
  double ignored = 0;
  if (!timed_run(o, freq, u, settings.front(), ignored, error)) return false;
  const std::size_t n = settings.size();
  r.times.assign(n, {});
  const double core_stretch = settings[0].core_hz / settings[1].core_hz;
  for (int i = 0; i < o.runs; ++i) {
    std::vector<double> t(n, 0);
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t k = (static_cast<std::size_t>(i) + j) % n;
      if (!timed_run(o, freq, u, settings[k], t[k], error)) return false;
    }
    for (std::size_t k = 0; k < n; ++k) r.times[k].push_back(t[k]);
    r.core.push_back((t[1] / t[0] - 1) / (core_stretch - 1));
    if (n > 2) r.uncore.push_back((t[2] / t[0] - 1) / (u.stretch - 1));
  }
  return true;
}

nlohmann::json uncore_json(const UncoreLever& u, const Rounds& r) {
  nlohmann::json j;
  if (r.uncore.empty()) {
    j["measured"] = false;
    j["why"] = u.missing;
    return j;
  }
  const Summary s = summarize(r.uncore);
  j["measured"] = true;
  j["sensitivity"] = s.mean;
  j["ci95"] = s.ci95;
  j["per_round"] = r.uncore;
  j["f_fast_hz"] = u.fast_hz;
  j["f_slow_hz"] = u.slow_hz;
  j["stretch"] = u.stretch;
  j["stretch_from"] = u.model;
  j["t_slow_s"] = r.times[2];
  return j;
}

void write_json(const CalibrateOptions& o, const std::vector<Setting>& settings, const Summary& b, const UncoreLever& u,
                const Rounds& r) {
  nlohmann::json j;
  j["program"] = o.program;
  j["host"] = calibration_host();
  j["date"] = calibration_date();
  j["method"] =
      "rubato calibrate --beta: per round of runs (interleaved, the order rotating, one warm-up run not counted) "
      "beta = (T_core_slow / T_fast - 1) / (f_fast / f_slow - 1), uncore sensitivity = (T_uncore_slow / T_fast - "
      "1) / (g(fu_slow) - 1); mean and 95% Student-t interval over the rounds";
  j["f_fast_hz"] = settings[0].core_hz;
  j["f_slow_hz"] = settings[1].core_hz;
  j["runs"] = o.runs;
  j["beta"] = b.mean;
  j["core_sensitivity"] = b.mean;
  j["ci95"] = b.ci95;
  j["ci95_low"] = b.mean - b.ci95;
  j["ci95_high"] = b.mean + b.ci95;
  j["beta_per_pair"] = r.core;
  j["t_fast_s"] = r.times[0];
  j["t_slow_s"] = r.times[1];
  j["uncore"] = uncore_json(u, r);
  write_or_throw(o.out, j.dump(2) + "\n");
  std::printf("wrote %s\n", o.out.c_str());
}

// The lines a user reads, ending with the settings to use.
void print_result(const std::vector<Setting>& settings, const Summary& b, const UncoreLever& u, const Rounds& r,
                  int runs) {
  const Summary f = summarize(r.times[0]), s = summarize(r.times[1]);
  std::printf(
      "beta %.4f  95%% CI [%.4f, %.4f]  (%d rounds; T_fast %.4f s ± %.4f, T_slow %.4f s ± %.4f; f %.0f / %.0f MHz)\n",
      b.mean, b.mean - b.ci95, b.mean + b.ci95, runs, f.mean, f.ci95, s.mean, s.ci95, settings[0].core_hz / 1e6,
      settings[1].core_hz / 1e6);
  double core = std::clamp(b.mean, 0.0, 1.0);
  if (r.uncore.empty()) {
    std::printf("uncore sensitivity: not measured (%s)\n", u.missing.c_str());
    std::printf("use it: RUBATO_BETA=%.3f RUBATO_POLICY=eco (RUBATO_BETA takes 0..1)\n", core);
    return;
  }
  const Summary un = summarize(r.uncore), ut = summarize(r.times[2]);
  std::printf("uncore sensitivity %.4f  95%% CI [%.4f, %.4f]  (T at uncore %s %.4f s ± %.4f; g = %.3f from %s)\n",
              un.mean, un.mean - un.ci95, un.mean + un.ci95, ghz(u.slow_hz).c_str(), ut.mean, ut.ci95, u.stretch,
              u.model.c_str());
  double uncore = std::clamp(un.mean, 0.0, 1.0);
  // The shares are parts of one time: where noise makes them exceed it, both shrink alike.
  if (core + uncore > 1) {
    std::printf("(the shares add up to %.3f; scaled to 1)\n", core + uncore);
    const double sum = core + uncore;
    core /= sum;
    uncore /= sum;
  }
  std::printf("use it: RUBATO_CORE_SENSITIVITY=%.3f RUBATO_UNCORE_SENSITIVITY=%.3f RUBATO_POLICY=eco\n", core, uncore);
}

// The settings to time: fastest, slowest core, and slowest uncore where it is measured.
std::vector<Setting> settings_of(const CalibrateOptions& o, const Topology& t, const UncoreLever& u) {
  std::vector<double> hz = o.measure.freqs_hz.empty() ? calibration_frequencies(t) : o.measure.freqs_hz;
  std::sort(hz.begin(), hz.end(), std::greater<>());
  if (hz.size() < 2 || !(hz.front() > hz.back())) return {};
  std::vector<Setting> s = {{hz.front(), u.fast_hz}, {hz.back(), u.fast_hz}};
  if (u.driver) s.push_back({hz.front(), u.slow_hz});
  return s;
}

}  // namespace

int measure_sensitivities(const CalibrateOptions& o) {
  std::string error;
  if (!calibration_possible(o.measure, error, /*need_rapl=*/false)) {
    std::fprintf(stderr, "rubato calibrate: %s\n", error.c_str());
    return 1;
  }
  // SIGINT / SIGTERM reach the program; the restore handlers armed by
  // begin() and the uncore's save() run first and chain to this forwarding.
  install_interrupt_forwarding();
  CalibrationFrequency freq(o.measure.sysfs_root, o.measure.state_dir);
  std::vector<int> cpus = o.measure.cpus;
  if (cpus.empty())
    for (int c : freq.topology().cpus)
      if (freq.topology().clock_domain_of(c) >= 0) cpus.push_back(c);
  const std::vector<Setting> core_only = settings_of(o, freq.topology(), UncoreLever{});
  if (core_only.empty()) {
    std::fprintf(stderr, "rubato calibrate: need two different frequencies to measure beta\n");
    return 1;
  }
  UncoreLever u = uncore_lever(o, freq.topology(), core_only.front().core_hz);
  const std::vector<Setting> settings = settings_of(o, freq.topology(), u);
  if (!freq.begin(cpus, error)) {
    if (u.driver) u.driver->restore();
    std::fprintf(stderr, "rubato calibrate: %s\n", error.c_str());
    return 1;
  }
  std::fprintf(stderr,
               "rubato calibrate: sensitivities of %s: 1 warm-up run, then %d rounds at %.0f and %.0f MHz%s, "
               "interleaved (the order rotates)\n",
               o.program.front().c_str(), o.runs, settings[0].core_hz / 1e6, settings[1].core_hz / 1e6,
               u.driver ? (" and uncore " + ghz(u.fast_hz) + " / " + ghz(u.slow_hz)).c_str() : "");
  Rounds rounds;
  const bool ok = measure_rounds(o, freq, u, settings, rounds, error);
  RestoreOutcome restored = freq.end();
  if (u.driver) {
    const RestoreOutcome un = u.driver->restore();
    restored.failed.insert(restored.failed.end(), un.failed.begin(), un.failed.end());
  }
  for (const auto& f : restored.failed) std::fprintf(stderr, "rubato calibrate: restore failed: %s\n", f.c_str());
  if (!ok) {
    std::fprintf(stderr, "rubato calibrate: %s; frequencies restored\n", error.c_str());
    return error == "interrupted" ? 130 : 1;
  }
  const Summary b = summarize(rounds.core);
  print_result(settings, b, u, rounds, o.runs);
  if (!o.out.empty()) write_json(o, settings, b, u, rounds);
  return restored.ok() ? 0 : 1;
}

}  // namespace rubato::cli
