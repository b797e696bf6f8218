// `rubato run`'s values checked before the first trial (cmd_run_checks.hpp):
// what a trial's tool would replace or could not use is refused, naming the
// option or variable, the value and what is accepted; what each run sets
// itself, and what --backend / --profile override, is not held against it.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "../power/fake_sysfs.hpp"
#include "cli_test_support.hpp"
#include "commands/args.hpp"
#include "commands/cmd_run_checks.hpp"
#include "rubato/core/config/config_table.hpp"

using namespace rubato;
using namespace rubato::cli;

namespace {

// The message check_run_values refuses `v` with; "" when it accepts it.
std::string refusal(const RunValues& v) {
  try {
    check_run_values(v);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("Cli.RunChecks.BackendMustBeARegisteredOne", "[cli][run]") {
  const std::string m = refusal({.backend = "emulatd"});
  INFO(m);
  CHECK(has(m, "--backend 'emulatd'"));
  CHECK(has(m, "accepted: auto | sysfs | likwid | emulated | dry-run"));
  CHECK(refusal({.backend = "dry-run"}).empty());
  CHECK(refusal({.backend = "emulated"}).empty());
  // From the environment: the variable is named.
  const std::string env = refusal({.environment = {{"RUBATO_BACKEND", "emulatd"}}});
  INFO(env);
  CHECK(has(env, "RUBATO_BACKEND='emulatd' is not accepted"));
  CHECK(has(env, "accepted: auto | sysfs | likwid | emulated | dry-run"));
  // --backend is what the trials get: a bad variable it replaces does not matter.
  CHECK(refusal({.backend = "dry-run", .environment = {{"RUBATO_BACKEND", "emulatd"}}}).empty());
}

TEST_CASE("Cli.RunChecks.ProfileMustLoad", "[cli][run]") {
  const std::string m = refusal({.profile = "opteron-9999"});
  INFO(m);
  CHECK(has(m, "--profile 'opteron-9999'"));
  CHECK(has(m, "not found"));
  CHECK(has(m, "generic"));  // the accepted names are listed
  CHECK(has(m, "or a JSON file"));
  CHECK(has(refusal({.environment = {{"RUBATO_PROFILE", "opteron-9999"}}}), "RUBATO_PROFILE 'opteron-9999'"));
  CHECK(refusal({.profile = "generic"}).empty());
  CHECK(refusal({.profile = "auto"}).empty());
  CHECK(refusal({.profile = "opteron-6378", .environment = {{"RUBATO_PROFILE", "opteron-9999"}}}).empty());
  // A file that is no profile.
  test::ScratchDir d;
  test::write_file(d.path() / "broken.json", "{\"frequencies_hz\": [");
  const std::string broken = refusal({.profile = (d.path() / "broken.json").string()});
  INFO(broken);
  CHECK(has(broken, "broken.json"));
}

TEST_CASE("Cli.RunChecks.EveryVariableTheTrialsRead", "[cli][run]") {
  const std::string uncore = refusal({.environment = {{"RUBATO_UNCORE", "2x"}}});
  INFO(uncore);
  CHECK(has(uncore, "RUBATO_UNCORE='2x' is not accepted"));
  CHECK(has(uncore, "accepted: a frequency"));
  CHECK(has(refusal({.environment = {{"RUBATO_BAKCEND", "emulated"}}}), "unknown variable RUBATO_BAKCEND"));
  CHECK(has(refusal({.environment = {{"RUBATO_COUNTERS", "replay:/nonexistent/series.csv"}}}),
            "RUBATO_COUNTERS='replay:/nonexistent/series.csv'"));
  CHECK(has(refusal({.environment = {{"RUBATO_SYSFS_ROOT", "/nonexistent/sys"}}}),
            "RUBATO_SYSFS_ROOT='/nonexistent/sys' is not a directory"));
  test::ScratchDir d;
  test::write_file(d.path() / "rubato.conf", "binding = sideways\n");
  const std::string file = refusal({.environment = {{"RUBATO_CONFIG", (d.path() / "rubato.conf").string()}}});
  INFO(file);
  CHECK(has(file, "rubato.conf:1: binding='sideways' is not accepted"));
  CHECK(has(file, "accepted: none | static | dynamic"));
  CHECK_FALSE(has(file, "using the default"));  // refused, not replaced
  // What each run sets itself is not held against it.
  CHECK(refusal({.environment = {{"RUBATO_POLICY", "turbo"}, {"RUBATO_REPORT", ""}}}).empty());
  // Several at once: each on its own line.
  const std::string both = refusal({.backend = "x", .environment = {{"RUBATO_LOG", "loud"}}});
  INFO(both);
  CHECK(has(both, "--backend 'x'"));
  CHECK(has(both, "\nrubato run: RUBATO_LOG='loud'"));
}

TEST_CASE("Cli.RunChecks.BackendMustWorkHere", "[cli][run]") {
  test::ScratchDir empty, state;
  const Environment no_cpufreq = {{"RUBATO_SYSFS_ROOT", empty.str()}, {"RUBATO_STATE_DIR", state.str() + "/s"}};
  const std::string m = refusal({.backend = "sysfs", .environment = no_cpufreq});
  INFO(m);
  CHECK(has(m, "--backend sysfs cannot work here (no cpufreq policies"));
  CHECK(has(m, "usable here: auto | emulated | dry-run"));
  // With a launcher the ranks may run elsewhere: said, not refused.
  const TrialSetup launched = check_run_values({.backend = "sysfs", .launched = true, .environment = no_cpufreq});
  REQUIRE(launched.warnings.size() == 1);
  CHECK(has(launched.warnings.front(), "--backend sysfs cannot work here"));

  // A cpufreq tree rubato can drive: sysfs works; an uncore it cannot pin is refused.
  test::FakeSysfs tree;
  tree.add_cpus(2, 1, {2400000, 1600000});
  const Environment cpufreq = {{"RUBATO_SYSFS_ROOT", tree.root()}, {"RUBATO_STATE_DIR", state.str() + "/s"}};
  CHECK(refusal({.backend = "sysfs", .environment = cpufreq}).empty());
  Environment with_uncore = cpufreq;
  with_uncore.emplace_back("RUBATO_UNCORE", "1.8GHz");
  const std::string uncore = refusal({.backend = "sysfs", .environment = with_uncore});
  INFO(uncore);
  CHECK(has(uncore, "RUBATO_UNCORE=1.8GHz cannot be applied here"));
  // ... which the emulator only models.
  CHECK(refusal({.backend = "emulated", .environment = with_uncore}).empty());
}

TEST_CASE("Cli.RunChecks.TheVariablesListIsTheRegistrys", "[cli][run]") {
  // core/config cannot see power's back-end registry: its accepted text for
  // RUBATO_BACKEND must still name exactly the registered back-ends.
  const ConfigKey* key = find_config_key_by_env("RUBATO_BACKEND");
  REQUIRE(key);
  CHECK(std::string(key->accepted) == backend_names());
}
