// Bad settings (bad input): every RUBATO_* variable and every
// config-file key with empty, huge, negative, non-numeric, out-of-range and
// unknown values. Each bad value gives exactly one line naming the variable
// (or file:line and key) and what is accepted, and the default is used; the
// program's output and exit status never change.
//
// In-process: every key x 15 values through load_settings (environment) and
// apply_config_text (file), the whole Settings compared with the defaults.
// End to end: every key x 6 value classes through the real OMPT tool and a
// real program, by environment and by RUBATO_CONFIG file.
#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>

#include "fake_sysfs.hpp"
#include "reliability_paths.hpp"
#include "rubato/core/config/config_table.hpp"
#include "rubato/core/config/settings.hpp"
#include "child_process.hpp"

using namespace rubato;

namespace {

// Every field, as text: "the default is used" means this does not change.
std::string describe(const Settings& s) {
  std::ostringstream o;
  auto list = [&](const std::vector<double>& v) {
    for (double d : v) o << d << ',';
    o << ';';
  };
  o << s.enabled << ';' << s.policy.name() << ';' << s.backend << ';';
  list(s.freqs_hz);
  o << s.thresholds << ';';
  list(s.threshold_values);
  o << s.profile_window << ';' << s.profile_interval_s << ';' << s.binding << ';' << s.profile << ';' << s.profile_dir
    << ';' << s.report << ';' << s.trace << ';' << s.log << ';' << s.sysfs_root << ';' << s.state_dir << ';'
    << s.min_dwell_s << ';' << s.beta << ';' << s.max_workers << ';' << s.counters << ';' << s.control_interval_s << ';'
    << s.core_sensitivity << ';' << s.uncore_sensitivity << ';' << s.max_time_loss << ';' << s.min_energy_closed_loop
    << ';' << s.plant.given << ';' << s.plant.core << ';' << s.plant.uncore << ';' << s.plant.profile << ';'
    << s.plant.uncore_exponent;
  return o.str();
}

struct Value {
  std::string label, text;
};

const std::vector<Value>& bad_values() {
  static const std::vector<Value> values = {
      {"empty", ""},
      {"blank", "   "},
      {"huge number", std::string(100000, '9')},
      {"huge text", std::string(100000, 'x')},
      {"negative", "-1"},
      {"negative duration", "-5ms"},
      {"non-numeric", "abc"},
      {"zero", "0"},
      {"out of range (1e9)", "1e9"},
      {"out of range (10^8)", "100000000"},
      {"unknown word", "bogus-value"},
      {"control characters", "\x01\x02\x7f"},
      {"trailing garbage", "1x"},
      {"nan", "nan"},
      {"inf", "inf"},
  };
  return values;
}

bool one_of(const std::string& v, std::initializer_list<const char*> options) {
  for (const char* o : options)
    if (v == o) return true;
  return false;
}

std::string trimmed(const std::string& v) {
  const auto b = v.find_first_not_of(" \t\r");
  return b == std::string::npos ? "" : v.substr(b, v.find_last_not_of(" \t\r") - b + 1);
}

// Which of bad_values() a key legitimately takes (the rest must be refused).
bool accepted(std::string_view env, const std::string& v) {
  if (one_of(std::string(env), {"RUBATO_PROFILE", "RUBATO_PROFILE_DIR", "RUBATO_SYSFS_ROOT", "RUBATO_STATE_DIR"}))
    return !trimmed(v).empty() && v.size() < 4096;  // a name or path; checked where it is used
  if (env == "RUBATO_REPORT" || env == "RUBATO_TRACE") return v.size() < 4096;  // "" = none
  if (env == "RUBATO_ENABLE") return v == "0";
  if (env == "RUBATO_THRESHOLD_VALUES") return one_of(v, {"0", "1e9", "100000000"});
  if (one_of(std::string(env), {"RUBATO_MIN_DWELL", "RUBATO_BETA", "RUBATO_CORE_SENSITIVITY",
                                "RUBATO_UNCORE_SENSITIVITY", "RUBATO_MAX_TIME_LOSS"}))
    return v == "0";
  if (env == "RUBATO_UNCORE") return trimmed(v).empty();       // empty: left alone, the default
  if (env == "RUBATO_SLACK_DWELL") return trimmed(v).empty();  // empty: auto, the default
  return false;
}

}  // namespace

TEST_CASE("Reliability.BadSettings.EveryVariableEveryBadValueInProcess") {
  const std::string defaults = describe(Settings{});
  int cases = 0;
  for (const ConfigKey& key : config_keys()) {
    for (const Value& value : bad_values()) {
      INFO(key.env << " = " << value.label);
      const bool ok = accepted(key.env, value.text);
      // The environment.
      Diagnostics diag;
      const Settings s = load_settings({{std::string(key.env), value.text}}, diag);
      if (ok) {
        CHECK(diag.lines.empty());
      } else {
        REQUIRE(diag.lines.size() == 1);
        const std::string& line = diag.lines[0];
        CHECK(line.rfind("rubato: " + std::string(key.env) + "=", 0) == 0);
        CHECK(line.find("accepted: " + std::string(key.accepted)) != std::string::npos);
        CHECK(line.find("using the default " + std::string(key.default_text)) != std::string::npos);
        CHECK(line.size() < 1024);  // a huge value (100000 bytes) is shown shortened
        CHECK(describe(s) == defaults);
      }
      // The same value in a config file.
      Diagnostics file_diag;
      Settings from_file;
      apply_config_text("# bad values\n" + std::string(key.file_key) + " = " + value.text + "\n", "bad.conf", from_file,
                        file_diag);
      if (accepted(key.env, trimmed(value.text))) {  // the file trims: "   " is "" there
        CHECK(file_diag.lines.empty());
      } else {
        REQUIRE(file_diag.lines.size() == 1);
        CHECK(file_diag.lines[0].find("bad.conf:2: " + std::string(key.file_key) + "=") != std::string::npos);
        CHECK(describe(from_file) == defaults);
      }
      cases += 2;
    }
  }
  // Names that are no key at all.
  Diagnostics diag;
  const Settings s = load_settings({{"RUBATO_POLICYY", "hermes"}, {"RUBATO_", "1"}, {"RUBATO_policy", "hermes"}}, diag);
  CHECK(diag.lines.size() == 3);
  for (const auto& line : diag.lines) CHECK(line.find("unknown variable") != std::string::npos);
  CHECK(describe(s) == defaults);
  Settings f;
  Diagnostics file_diag;
  apply_config_text("polcy = hermes\nno equals sign\n= 1\npolicy = hermes = workpath\n", "typos.conf", f, file_diag);
  CHECK(file_diag.lines.size() == 4);
  CHECK(describe(f) == defaults);
  std::printf("Reliability.BadSettings: %d key/value cases in process, all one line + default\n", cases + 7);
}

// ---- end to end through the OMPT tool ------------------------------------------------------

namespace {

// The six classes of bad value (empty, huge, negative, non-numeric, out of
// range, unknown), with the out-of-range value each key has.
std::vector<Value> classes_for(std::string_view env) {
  std::string out_of_range = "0";
  if (env == "RUBATO_ENABLE") out_of_range = "2";
  else if (env == "RUBATO_BETA" || env == "RUBATO_CORE_SENSITIVITY" || env == "RUBATO_UNCORE_SENSITIVITY")
    out_of_range = "1.5";
  else if (env == "RUBATO_MAX_TIME_LOSS") out_of_range = "150%";
  else if (env == "RUBATO_MIN_DWELL" || env == "RUBATO_SLACK_DWELL") out_of_range = "11s";
  else if (env == "RUBATO_THRESHOLD_VALUES") out_of_range = "1e10";
  else if (env == "RUBATO_FREQS" || env == "RUBATO_UNCORE") out_of_range = "200GHz";
  else if (env == "RUBATO_PROFILE") out_of_range = "/nonexistent-rubato/p.json";
  else if (env == "RUBATO_REPORT" || env == "RUBATO_TRACE") out_of_range = "/nonexistent-rubato/out";
  else if (env == "RUBATO_PROFILE_DIR" || env == "RUBATO_SYSFS_ROOT") out_of_range = "/nonexistent-rubato";
  else if (env == "RUBATO_STATE_DIR") out_of_range = "/nonexistent-rubato/state";
  else if (env == "RUBATO_COUNTERS") out_of_range = "replay:";
  else if (env == "RUBATO_PLANT") out_of_range = "core=0.9,uncore=0.5";
  return {{"empty", ""},          {"huge", std::string(100000, '9')}, {"negative", "-1"},
          {"non-numeric", "abc"}, {"out of range", out_of_range},     {"unknown", "bogus"}};
}

// How many lines rubato must say for a value that is not refused while
// parsing (0: a legitimate setting; 1: refused where it is used).
int lines_when_accepted(std::string_view env, const std::string& v) {
  if (env == "RUBATO_PROFILE") return 1;  // no such profile: the generic one is used, with one line
  if (env == "RUBATO_PROFILE_DIR" || env == "RUBATO_SYSFS_ROOT") return 1;  // no such directory
  if (env == "RUBATO_REPORT" || env == "RUBATO_TRACE") return v.rfind("/nonexistent", 0) == 0 ? 1 : 0;
  return 0;  // RUBATO_ENABLE=0 and friends; RUBATO_STATE_DIR is checked only when a back-end saves state
}

void run_every_key(bool by_file) {
  test::TempDir tmp;
  int runs = 0;
  for (const ConfigKey& key : config_keys()) {
    for (const Value& value : classes_for(key.env)) {
      if (by_file && value.label == "huge") continue;  // the file route's huge case is in-process (a line < 1 MiB)
      const std::string name = std::string(key.env) + " " + value.label;
      const std::string dir = tmp.path() + "/" + std::to_string(runs++);
      std::filesystem::create_directories(dir);
      test::EnvList env = {{"OMP_TOOL_LIBRARIES", test::kOmptTool}, {"OMP_NUM_THREADS", "2"}};
      if (key.env != "RUBATO_PROFILE_DIR") env.emplace_back("RUBATO_PROFILE_DIR", test::kProfilesDir);
      if (key.env != "RUBATO_REPORT") env.emplace_back("RUBATO_REPORT", dir + "/report.json");
      if (by_file) {
        std::ofstream(dir + "/rubato.conf") << key.file_key << " = " << value.text << "\n";
        env.emplace_back("RUBATO_CONFIG", dir + "/rubato.conf");
      } else {
        env.emplace_back(std::string(key.env), value.text);
      }
      const auto r = test::run_program({test::kTicker, "12", dir + "/stop", "0"}, env, dir + "/run", 60, dir);
      INFO(name << (by_file ? " (config file)" : " (environment)") << "\n" << r.err);
      CHECK(r.ok());
      CHECK(r.out == "fib(12) = 144\n");
      const auto lines = test::rubato_lines(r.err);
      const bool refused = !accepted(key.env, value.text);
      CHECK(static_cast<int>(lines.size()) == (refused ? 1 : lines_when_accepted(key.env, value.text)));
      for (const auto& line : lines)
        CHECK(line.find(by_file && refused ? std::string(key.file_key) : std::string(key.env)) != std::string::npos);
    }
  }
  std::printf("Reliability.BadSettings: %d runs of a real program (%s), output and status unchanged\n", runs,
              by_file ? "RUBATO_CONFIG file" : "environment");
}

}  // namespace

TEST_CASE("Reliability.BadSettings.ThroughTheToolByEnvironment") { run_every_key(false); }
TEST_CASE("Reliability.BadSettings.ThroughTheToolByConfigFile") { run_every_key(true); }
