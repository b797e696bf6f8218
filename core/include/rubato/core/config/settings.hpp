// Every user setting of rubato, read from RUBATO_* environment variables and
// optionally a `key = value` file named by RUBATO_CONFIG (environment wins).
// One table (config_table.hpp) drives the parser, the README and `rubato info`.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "rubato/core/base/diagnostics.hpp"
#include "rubato/core/config/policy.hpp"

namespace rubato {

// RUBATO_PLANT: what the emulator's stretch and its energy obey — the
// program's true shares and the machine's law — kept apart from what the
// policies believe (RUBATO_PROFILE, the sensitivity settings), so that a
// controller run on the emulator is graded by a law it was not told.
struct EmulatorPlant {
  bool given = false;
  double core = 1.0;             // b_c of the emulated work
  double uncore = 0.0;           // b_u
  std::string profile;           // the plant's machine (power, knee): a name or a JSON path; "": RUBATO_PROFILE's
  double uncore_exponent = 1.0;  // the uncore term's shape: g(fu)^G
};

struct Settings {
  bool enabled = true;
  PolicySpec policy;
  std::string backend = "auto";           // auto | sysfs | likwid | emulated | dry-run
  std::vector<double> freqs_hz;           // tempo frequencies; empty: fastest + ~0.6x fastest
  int thresholds = 2;                     // K
  std::vector<double> threshold_values;   // fixed thresholds (disables online profiling)
  std::uint32_t profile_window = 16;      // M
  double profile_interval_s = 1e-4;       // deque-size sampling interval per worker
  std::string binding = "none";           // none | static | dynamic ([HERMES] §3.4)
  std::string profile = "auto";           // machine profile name or JSON path
  std::string profile_dir;                // searched first for profiles; "" = installed + source dirs
  std::string report = "rubato-%p.json";  // "" disables the report
  std::string trace;                      // task trace path, "" = none
  std::string log = "warn";               // error | warn | info | debug
  std::string sysfs_root = "/sys";
  std::string state_dir;      // "" = /run/rubato (root) or $XDG_RUNTIME_DIR/rubato
  double min_dwell_s = 1e-3;  // per clock domain, between frequency changes
  double uncore_hz = 0;       // RUBATO_UNCORE: pinned uncore frequency; 0 = left alone
  double slack_dwell_s = -1;  // RUBATO_SLACK_DWELL; <0: from the profile (slack_dwell_default_s)
  double beta = -1;           // frequency-sensitive fraction (b_c); <0: from the profile
  // The work's sensitivities as the user measured them (e.g. `rubato
  // calibrate`); <0: not given. RUBATO_CORE_SENSITIVITY is RUBATO_BETA's
  // newer name: load_settings copies it into `beta` (it wins where both are given).
  double core_sensitivity = -1;
  double uncore_sensitivity = -1;
  double max_time_loss = 0.05;         // min-energy: at most this much more time than at the fastest pair
  bool min_energy_closed_loop = true;  // RUBATO_MIN_ENERGY_LOOP: learn from measured durations (docs/min-energy.md)
  EmulatorPlant plant;                 // RUBATO_PLANT
  std::uint32_t max_workers = 256;
  std::string counters = "auto";     // counter source: auto | papi | likwid | perf | proc | replay:<file> | none
  double control_interval_s = 0.01;  // EFS / affinity controller period
};

using Environment = std::vector<std::pair<std::string, std::string>>;

// Reads settings from `env` (name, value pairs — pass the process environment)
// and the RUBATO_CONFIG file it may name. Every bad value, unknown RUBATO_*
// variable or unknown file key adds one line to `diag` and keeps the default.
Settings load_settings(const Environment& env, Diagnostics& diag);

// Parses one `key = value` document (the RUBATO_CONFIG format) into `out`;
// `origin` names it in messages. Exposed for the fuzzer and tests.
void apply_config_text(std::string_view text, std::string_view origin, Settings& out, Diagnostics& diag);

}  // namespace rubato
