#include "rubato/core/config/config_table.hpp"

#include <array>

#include "rubato/core/tempo/tempo_ladder.hpp"
#include "config/value_parsers.hpp"

namespace rubato {
namespace {

using detail::parse_bool;
using detail::parse_double;
using detail::parse_duration_s;
using detail::parse_int;
using detail::trim;

// RUBATO_PLANT's value: comma-separated key=value items.
bool parse_plant(std::string_view text, EmulatorPlant& out, std::string& why) {
  EmulatorPlant p;
  p.given = true;
  bool core = false;
  if (trim(text).empty()) return why = "no plant given", false;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) return why = "expected key=value, got '" + std::string(item) + "'", false;
    const std::string_view key = trim(item.substr(0, eq)), value = trim(item.substr(eq + 1));
    bool ok = true;
    if (key == "core") ok = parse_double(value, 0, 1, p.core), core = true;
    else if (key == "uncore") ok = parse_double(value, 0, 1, p.uncore);
    else if (key == "uncore_exponent") ok = parse_double(value, 0.1, 5, p.uncore_exponent);
    else if (key == "profile") p.profile = std::string(value), ok = !value.empty();
    else return why = "unknown key '" + std::string(key) + "'", false;
    if (!ok) return why = "bad value for " + std::string(key), false;
  }
  if (!core) p.core = 1.0 - p.uncore;
  if (p.core + p.uncore > 1.0 + 1e-9) return why = "core + uncore exceed 1: they are shares of the same time", false;
  out = p;
  return true;
}

bool one_of(std::string_view v, std::initializer_list<std::string_view> options) {
  for (auto o : options)
    if (v == o) return true;
  return false;
}

// Paths: any non-empty text without NUL, bounded so a runaway value is refused.
bool path_ok(std::string_view v) { return v.size() < 4096 && v.find('\0') == std::string_view::npos; }

const std::array kKeys = {
    ConfigKey{"RUBATO_ENABLE", "enable", "1", "1 | 0 (also true/false, yes/no, on/off)",
              "0 leaves the program alone: the tool does not start",
              [](Settings& s, std::string_view v, std::string&) { return parse_bool(v, s.enabled); }},
    ConfigKey{"RUBATO_POLICY", "policy", "baseline", kPolicyAccepted, "tempo policy and controllers",
              [](Settings& s, std::string_view v, std::string& why) {
                auto p = parse_policy(trim(v), why);
                if (p) s.policy = *p;
                return p.has_value();
              }},
    ConfigKey{"RUBATO_BACKEND", "backend", "auto", "auto | sysfs | likwid | emulated | dry-run",
              "how a tempo becomes real: auto picks sysfs, else likwid, else records decisions only "
              "(dry-run) and says why; the emulator only when asked for",
              [](Settings& s, std::string_view v, std::string&) {
                v = trim(v);
                if (!one_of(v, {"auto", "sysfs", "likwid", "emulated", "dry-run"})) return false;
                s.backend = v;
                return true;
              }},
    ConfigKey{"RUBATO_FREQS", "freqs",
              "eco / min-energy: every available level, thinned evenly to 8; others: fastest,~0.6*fastest",
              "comma list of 1..8 frequencies with units, e.g. 2.4GHz,1.6GHz",
              "the tempo levels (N-frequency control, [HERMES] §3.4), fastest first",
              [](Settings& s, std::string_view v, std::string& why) {
                std::vector<double> f;
                if (!parse_frequency_list(trim(v), f, why)) return false;
                s.freqs_hz = std::move(f);
                return true;
              }},
    ConfigKey{"RUBATO_THRESHOLDS", "thresholds", "2", "an integer 1..8",
              "K, the number of workload thresholds ([HERMES] §3.2)",
              [](Settings& s, std::string_view v, std::string&) {
                long long k = 0;
                if (!parse_int(v, 1, kMaxThresholds, k)) return false;
                s.thresholds = static_cast<int>(k);
                return true;
              }},
    ConfigKey{"RUBATO_THRESHOLD_VALUES", "threshold_values", "(online profiling)",
              "comma list of 1..8 non-negative deque sizes, e.g. 1,3",
              "fixed workload thresholds instead of online profiling",
              [](Settings& s, std::string_view v, std::string&) {
                std::vector<double> out;
                v = trim(v);
                while (true) {
                  const auto comma = v.find(',');
                  double d = 0;
                  if (!parse_double(v.substr(0, comma), 0, 1e9, d)) return false;
                  out.push_back(d);
                  if (comma == std::string_view::npos) break;
                  v.remove_prefix(comma + 1);
                }
                if (out.size() > static_cast<std::size_t>(kMaxThresholds)) return false;
                s.threshold_values = std::move(out);
                return true;
              }},
    ConfigKey{"RUBATO_PROFILE_WINDOW", "profile_window", "16", "an integer 1..1000000",
              "M, deque-size samples per profiling period ([HERMES] §3.2)",
              [](Settings& s, std::string_view v, std::string&) {
                long long m = 0;
                if (!parse_int(v, 1, 1'000'000, m)) return false;
                s.profile_window = static_cast<std::uint32_t>(m);
                return true;
              }},
    ConfigKey{"RUBATO_PROFILE_INTERVAL", "profile_interval", "100us", "a duration 1us..10s (ns, us, ms, s)",
              "how often each worker samples its deque size",
              [](Settings& s, std::string_view v, std::string&) {
                return parse_duration_s(v, 1e-6, 10, s.profile_interval_s);
              }},
    ConfigKey{"RUBATO_BINDING", "binding", "none", "none | static | dynamic",
              "worker-core binding: static pins at worker start, dynamic around each task ([HERMES] §3.4)",
              [](Settings& s, std::string_view v, std::string&) {
                v = trim(v);
                if (!one_of(v, {"none", "static", "dynamic"})) return false;
                s.binding = v;
                return true;
              }},
    ConfigKey{"RUBATO_PROFILE", "profile", "auto", "a profile name (rubato info lists them) or a JSON file path",
              "machine profile: frequencies, domains, power model",
              [](Settings& s, std::string_view v, std::string&) {
                v = trim(v);
                if (v.empty() || !path_ok(v)) return false;
                s.profile = v;
                return true;
              }},
    ConfigKey{"RUBATO_PROFILE_DIR", "profile_dir", "(installed and source profile dirs)", "a directory path",
              "searched first for <name>.json machine profiles",
              [](Settings& s, std::string_view v, std::string&) {
                v = trim(v);
                if (v.empty() || !path_ok(v)) return false;
                s.profile_dir = v;
                return true;
              }},
    ConfigKey{"RUBATO_REPORT", "report", "rubato-%p.json",
              "a path; %p pid, %h host, %r MPI/Slurm rank; empty for no report", "where the JSON report goes",
              [](Settings& s, std::string_view v, std::string&) {
                if (!path_ok(v)) return false;
                s.report = trim(v);
                return true;
              }},
    ConfigKey{"RUBATO_TRACE", "trace", "(none)", "a path (%p, %h, %r as for the report)",
              "record a task trace for `rubato simulate`",
              [](Settings& s, std::string_view v, std::string&) {
                if (!path_ok(v)) return false;
                s.trace = trim(v);
                return true;
              }},
    ConfigKey{"RUBATO_LOG", "log", "warn", "error | warn | info | debug", "how much rubato says on stderr",
              [](Settings& s, std::string_view v, std::string&) {
                v = trim(v);
                if (!one_of(v, {"error", "warn", "info", "debug"})) return false;
                s.log = v;
                return true;
              }},
    ConfigKey{"RUBATO_SYSFS_ROOT", "sysfs_root", "/sys", "an existing directory path",
              "root of the sysfs tree (tests point it at a fake tree)",
              [](Settings& s, std::string_view v, std::string&) {
                v = trim(v);
                if (v.empty() || !path_ok(v)) return false;
                s.sysfs_root = v;
                return true;
              }},
    ConfigKey{"RUBATO_STATE_DIR", "state_dir", "/run/rubato or $XDG_RUNTIME_DIR/rubato", "a directory path",
              "where machine state is saved before it is changed",
              [](Settings& s, std::string_view v, std::string&) {
                v = trim(v);
                if (v.empty() || !path_ok(v)) return false;
                s.state_dir = v;
                return true;
              }},
    ConfigKey{"RUBATO_MIN_DWELL", "min_dwell", "1ms", "a duration 0..10s",
              "least time between two frequency changes of one clock domain",
              [](Settings& s, std::string_view v, std::string&) { return parse_duration_s(v, 0, 10, s.min_dwell_s); }},
    ConfigKey{"RUBATO_SLACK_DWELL", "slack_dwell", "auto", "a duration 10us..10s, or auto",
              "slack: how long a worker waits before it is lowered to the slowest level; auto = 10 x the "
              "profile's transition latency, at least 1ms",
              [](Settings& s, std::string_view v, std::string&) {
                v = trim(v);
                if (v == "auto" || v.empty()) {
                  s.slack_dwell_s = -1;
                  return true;
                }
                return parse_duration_s(v, 1e-5, 10, s.slack_dwell_s);
              }},
    ConfigKey{"RUBATO_UNCORE", "uncore", "(left alone)", "a frequency 0.1..20GHz with units, e.g. 1.8GHz, or none",
              "pins the uncore frequency (intel_uncore_frequency) of every package for the run; the power model "
              "charges the profile's uncore power at it",
              [](Settings& s, std::string_view v, std::string& why) {
                v = trim(v);
                if (v.empty() || v == "none") {
                  s.uncore_hz = 0;
                  return true;
                }
                double hz = 0;
                if (!parse_frequency(v, hz, why) || !(hz >= 1e8 && hz <= 2e10)) return false;
                s.uncore_hz = hz;
                return true;
              }},
    ConfigKey{"RUBATO_BETA", "beta", "(from the profile)", "a number 0..1",
              "the older name of RUBATO_CORE_SENSITIVITY (that one wins where both are given)",
              [](Settings& s, std::string_view v, std::string&) { return parse_double(v, 0, 1, s.beta); }},
    ConfigKey{"RUBATO_CORE_SENSITIVITY", "core_sensitivity", "(from the profile's beta)", "a number 0..1",
              "b_c: the share of the work's time that scales with the core clock, as measured for this "
              "program (e.g. rubato calibrate --beta); for the emulator, the cost guard and min-energy",
              [](Settings& s, std::string_view v, std::string&) { return parse_double(v, 0, 1, s.core_sensitivity); }},
    ConfigKey{
        "RUBATO_UNCORE_SENSITIVITY", "uncore_sensitivity", "(from counters, else the profile: 0)",
        "a number 0..1; with the core share at most 1 in all",
        "b_u: the share of the work's time spent moving data through the uncore at the memory "
        "system's bandwidth, as measured for this program; counters, where the machine has them, "
        "come first (docs/min-energy.md)",
        [](Settings& s, std::string_view v, std::string&) { return parse_double(v, 0, 1, s.uncore_sensitivity); }},
    ConfigKey{"RUBATO_MAX_TIME_LOSS", "max_time_loss", "5%",
              "a fraction 0..1 or a percentage 0%..100%, e.g. 0.05 or 5%",
              "min-energy: the most time the chosen core and uncore levels may add, as a share of the "
              "time at the fastest levels (EAR's min_energy bound)",
              [](Settings& s, std::string_view v, std::string&) {
                v = trim(v);
                const bool percent = !v.empty() && v.back() == '%';
                if (percent) v.remove_suffix(1);
                double x = 0;
                if (!parse_double(v, 0, percent ? 100 : 1, x)) return false;
                s.max_time_loss = percent ? x / 100 : x;
                return true;
              }},
    ConfigKey{"RUBATO_MIN_ENERGY_LOOP", "min_energy_loop", "closed", "closed | open",
              "min-energy: closed learns the levels from the segment durations it measures (and the meter), "
              "the shares and counters only seed it; open chooses them from the shares (docs/min-energy.md)",
              [](Settings& s, std::string_view v, std::string&) {
                v = trim(v);
                if (v != "closed" && v != "open") return false;
                s.min_energy_closed_loop = v == "closed";
                return true;
              }},
    ConfigKey{"RUBATO_PLANT", "plant", "(the settings and RUBATO_PROFILE)",
              "core=B,uncore=B[,profile=NAME|PATH][,uncore_exponent=G], shares 0..1 summing to 1 at most, G 0.1..5",
              "the emulator: the work's true shares and the machine's law its stretch and energy obey, "
              "which the policies do not read (docs/min-energy.md \"The emulator's plant\")",
              [](Settings& s, std::string_view v, std::string& why) { return parse_plant(v, s.plant, why); }},
    ConfigKey{"RUBATO_MAX_WORKERS", "max_workers", "256", "an integer 1..4096",
              "worker slots; threads beyond are not observed (and counted)",
              [](Settings& s, std::string_view v, std::string&) {
                long long n = 0;
                if (!parse_int(v, 1, 4096, n)) return false;
                s.max_workers = static_cast<std::uint32_t>(n);
                return true;
              }},
    ConfigKey{"RUBATO_COUNTERS", "counters", "auto", "auto | papi | likwid | perf | proc | replay:<file> | none",
              "hardware-counter source for efs, affinity and min-energy",
              [](Settings& s, std::string_view v, std::string&) {
                v = trim(v);
                if (!one_of(v, {"auto", "papi", "likwid", "perf", "proc", "none"}) &&
                    !(v.substr(0, 7) == "replay:" && v.size() > 7 && path_ok(v)))
                  return false;
                s.counters = v;
                return true;
              }},
    ConfigKey{"RUBATO_CONTROL_INTERVAL", "control_interval", "10ms", "a duration 100us..10s",
              "period of the efs, affinity and min-energy controllers",
              [](Settings& s, std::string_view v, std::string&) {
                return parse_duration_s(v, 1e-4, 10, s.control_interval_s);
              }},
};

}  // namespace

std::span<const ConfigKey> config_keys() { return kKeys; }

const ConfigKey* find_config_key_by_env(std::string_view env) {
  for (const auto& k : kKeys)
    if (k.env == env) return &k;
  return nullptr;
}

const ConfigKey* find_config_key_by_file_key(std::string_view key) {
  for (const auto& k : kKeys)
    if (k.file_key == key) return &k;
  return nullptr;
}

}  // namespace rubato
