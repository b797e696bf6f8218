#include "commands/cmd_run_checks.hpp"

#include <filesystem>

#include "commands/args.hpp"
#include "rubato/core/config/config_table.hpp"
#include "rubato/core/tempo/tempo_ladder.hpp"
#include "rubato/power/counters/counter_source.hpp"
#include "rubato/power/frequency/backend_registry.hpp"

namespace rubato::cli {
namespace {

// `v` for a one-line message: printable, at most 120 characters.
std::string shown(const std::string& v) {
  std::string out;
  for (char c : v.substr(0, 120)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return v.size() > 120 ? out + "..." : out;
}

// The environment every trial starts with: rubato's own, less what each run
// sets itself, with --backend and --profile in force (a --backend that is
// not a back-end is refused by name, not passed on).
Environment trial_environment(const RunValues& v, bool backend_known) {
  const bool set_backend = !v.backend.empty() && backend_known;
  Environment env;
  for (const auto& [name, value] : v.environment) {
    if (name == "RUBATO_POLICY" || name == "RUBATO_REPORT") continue;
    if ((name == "RUBATO_BACKEND" && set_backend) || (name == "RUBATO_PROFILE" && !v.profile.empty())) continue;
    env.emplace_back(name, value);
  }
  if (set_backend) env.emplace_back("RUBATO_BACKEND", v.backend);
  if (!v.profile.empty()) env.emplace_back("RUBATO_PROFILE", v.profile);
  return env;
}

// A line of the settings parser, which goes on with a default, as a refusal:
// without its "rubato: " and what it would do instead.
std::string refused_line(std::string line) {
  if (line.rfind("rubato: ", 0) == 0) line.erase(0, 8);
  for (const char* instead : {"; using the default", "; line ignored", "; ignored", "; using no config file"})
    if (const auto at = line.rfind(instead); at != std::string::npos) return line.substr(0, at);
  return line;
}

// Each RUBATO_* variable against core/config's option table, as the tool
// reads it; and the RUBATO_CONFIG file, whose lines the settings parser checks.
void check_variables(const Environment& env, std::vector<std::string>& problems) {
  for (const auto& [name, value] : env) {
    if (name.rfind("RUBATO_", 0) != 0) continue;
    if (name == "RUBATO_CONFIG") {
      Diagnostics diag;
      load_settings({{name, value}}, diag);
      for (const std::string& line : diag.lines) problems.push_back(refused_line(line));
      continue;
    }
    const ConfigKey* key = find_config_key_by_env(name);
    if (!key) {
      problems.push_back("unknown variable " + shown(name) + " in the environment; accepted: the variables " +
                         "rubato config lists");
      continue;
    }
    Settings scratch;
    std::string why;
    if (!key->apply(scratch, value, why))
      problems.push_back(name + "='" + shown(value) + "' is not accepted" +
                         (why.empty() ? "" : " (" + shown(why) + ")") + "; accepted: " + std::string(key->accepted));
  }
}

// The directories the tool would replace or find nothing in.
void check_directories(const Settings& s, std::vector<std::string>& problems) {
  std::error_code ec;
  if (!s.profile_dir.empty() && !std::filesystem::is_directory(s.profile_dir, ec))
    problems.push_back("RUBATO_PROFILE_DIR='" + shown(s.profile_dir) +
                       "' is not a directory; accepted: a directory path");
  if (!std::filesystem::is_directory(s.sysfs_root, ec))
    problems.push_back("RUBATO_SYSFS_ROOT='" + shown(s.sysfs_root) +
                       "' is not a directory; accepted: an existing directory path");
}

// A profile named (by --profile, RUBATO_PROFILE or the config file) must load:
// the tool would otherwise model energy with the generic one.
void check_profile(const RunValues& v, const Settings& s, const MachineInfo& m, std::vector<std::string>& problems) {
  if (s.profile == "auto" || m.profile_error.empty()) return;
  std::string names;
  for (const auto& p : m.profiles) names += (names.empty() ? "" : ", ") + p;
  problems.push_back((v.profile.empty() ? "RUBATO_PROFILE" : "--profile") + std::string(" '") + shown(s.profile) +
                     "': " + m.profile_error + "; accepted: auto, a profile name (" + names + ") or a JSON file");
}

// The back-end asked for must work here (with --launcher the ranks' nodes may
// differ: said, not refused); and so must the uncore pinning a real back-end would do.
void check_usable(const RunValues& v, const TrialSetup& t, std::vector<std::string>& problems,
                  std::vector<std::string>& warnings) {
  auto& out = v.launched ? warnings : problems;
  const std::string option = v.backend.empty() ? "RUBATO_BACKEND" : "--backend";
  std::string usable;
  for (const auto& b : t.machine.frequency_backends)
    if (b.usable) usable += (usable.empty() ? "" : " | ") + b.name;
  for (const auto& b : t.machine.frequency_backends)
    if (b.name == t.settings.backend && !b.usable)
      out.push_back(option + " " + b.name + " cannot work here (" + b.why_not +
                    "); the trials would record decisions " + "only (dry-run); usable here: auto | " + usable);
  if (t.settings.uncore_hz > 0 && t.machine.real_frequency_control && !t.machine.uncore.usable)
    out.push_back("RUBATO_UNCORE=" + format_frequency(t.settings.uncore_hz) + " cannot be applied here (" +
                  t.machine.uncore.why_not + "); accepted here: none (the uncore left alone)");
}

// RUBATO_COUNTERS=replay:<file>: the recording must read.
void check_counters(const Settings& s, std::vector<std::string>& problems) {
  if (s.counters.rfind("replay:", 0) != 0) return;
  CounterSourceOptions options;
  options.replay_path = s.counters.substr(7);
  std::string why;
  if (!make_counter_source("replay", options, why))
    problems.push_back("RUBATO_COUNTERS='" + shown(s.counters) + "': " + why +
                       "; accepted: replay:<a recorded counter series (docs/efs-affinity.md)>");
}

}  // namespace

std::string backend_names() {
  std::string out = "auto";
  for (const auto& b : frequency_backends()) out += " | " + std::string(b.name);
  return out;
}

TrialSetup check_run_values(const RunValues& v) {
  std::vector<std::string> problems;
  const bool backend_known = v.backend.empty() || v.backend == "auto" || find_frequency_backend(v.backend);
  if (!backend_known)
    problems.push_back("--backend '" + shown(v.backend) +
                       "' is not a frequency back-end; accepted: " + backend_names());
  const Environment env = trial_environment(v, backend_known);
  check_variables(env, problems);
  TrialSetup t;
  Diagnostics reported_above;
  t.settings = load_settings(env, reported_above);
  check_directories(t.settings, problems);
  check_counters(t.settings, problems);
  if (problems.empty()) {  // the machine is asked under settings that hold
    t.machine = gather_machine_info(t.settings);
    check_profile(v, t.settings, t.machine, problems);
    check_usable(v, t, problems, t.warnings);
  }
  if (problems.empty()) return t;
  std::string message;
  for (const auto& p : problems) message += (message.empty() ? "" : "\nrubato run: ") + p;
  throw UsageError(message);
}

}  // namespace rubato::cli
