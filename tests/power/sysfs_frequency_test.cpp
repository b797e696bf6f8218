#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <thread>

#include "child_process.hpp"
#include "fake_sysfs.hpp"
#include "rubato/power/state/restore_saved_state.hpp"
#include "rubato/power/session/session.hpp"
#include "rubato/power/state/state_file.hpp"
#include "rubato/power/frequency/sysfs_frequency.hpp"

using namespace rubato;

namespace {

const std::vector<long> kKhz = {2400000, 2200000, 1900000, 1600000, 1400000};

DomainPlan plan_for(const Topology& t) {
  DomainPlan plan;
  for (const auto& d : t.clock_domains) plan.cpus_of_domain.push_back(d.cpus);
  plan.ladder = TempoLadder({2.4e9, 1.4e9});
  plan.max_workers = 4;
  return plan;
}

// The environment of a child that puts the fake tree under the sysfs back-end at `policy`.
std::vector<std::pair<std::string, std::string>> child_env(const test::FakeSysfs& fs, const test::TempDir& state,
                                                           const std::string& policy) {
  return {{"RUBATO_BACKEND", "sysfs"},
          {"RUBATO_SYSFS_ROOT", fs.root()},
          {"RUBATO_STATE_DIR", state.path()},
          {"RUBATO_POLICY", policy},
          {"RUBATO_REPORT", ""},
          {"RUBATO_MAX_WORKERS", "4"},
          {"RUBATO_PROFILE_DIR", RUBATO_TEST_PROFILES_DIR}};
}

// A fake tree, a state directory, the tree's bytes before anything ran, and
// children that take it over with the sysfs back-end.
struct ChildOnFakeTree {
  test::FakeSysfs fs;
  test::TempDir state;
  test::TempDir output;  // the child's stdout and stderr
  std::map<std::string, std::string> before;

  explicit ChildOnFakeTree(int cpus, int per_domain = 1, const std::string& governor = "ondemand") {
    fs.add_cpus(cpus, per_domain, kKhz, governor);
    before = fs.snapshot();
  }
  // Starts the child at `policy` and waits until it reports policy0 at `khz`.
  std::unique_ptr<test::RunningProgram> start(const std::string& policy, const std::string& khz,
                                              const std::string& extra = "") {
    std::vector<std::string> argv = {RUBATO_POWER_CHILD, fs.policy_dir(0) + "/scaling_setspeed"};
    if (!extra.empty()) argv.push_back(extra);
    test::SpawnOptions o;
    o.env = child_env(fs, state, policy);
    o.base = test::BaseEnv::inherited;
    o.work = output.path();
    auto child = std::make_unique<test::RunningProgram>(argv, o);
    REQUIRE(child->first_line() == "ready " + khz);
    CHECK(fs.read("devices/system/cpu/cpufreq/policy0/scaling_governor") == "userspace");
    return child;
  }
};

// The applier writes from a thread of its own: its state is waited for (20 s
// at most, generous on a loaded machine).
bool wait_for(const std::function<bool()>& done) { return test::wait_until(done, 20); }

}  // namespace

TEST_CASE("Power.Sysfs.TopologyFromFakeTree") {
  test::FakeSysfs fs;
  fs.add_cpus(4, 2, kKhz);
  const Topology t = read_topology(fs.root());
  CHECK(t.cpus == std::vector<int>{0, 1, 2, 3});
  REQUIRE(t.clock_domains.size() == 2);
  CHECK(t.clock_domains[0].cpus == std::vector<int>{0, 1});
  CHECK(t.clock_domains[1].cpus == std::vector<int>{2, 3});
  CHECK(t.clock_domains[0].available_hz.front() == Approx(2.4e9));  // kHz -> Hz
  CHECK(t.clock_domains[0].min_hz == Approx(1.4e9));
  CHECK(t.clock_domain_of(3) == 1);
  CHECK(t.available_hz().size() == 5);
  CHECK(t.caches.size() == 5);  // four private L1d, one shared L3
}

TEST_CASE("Power.Sysfs.TargetFrequencyNearestAndClamped") {
  ClockDomainInfo p;
  p.available_hz = {2.4e9, 1.9e9, 1.4e9};
  CHECK(cpufreq_target_khz(p, 1.5e9, 1400000, 2400000) == 1400000);
  CHECK(cpufreq_target_khz(p, 1.8e9, 1400000, 2400000) == 1900000);
  p.available_hz.clear();
  CHECK(cpufreq_target_khz(p, 1.44e9, 1600000, 2400000) == 1600000);  // no list: clamped into [min, max]
}

TEST_CASE("Power.Sysfs.ControlThenRestoreByteExact") {
  test::FakeSysfs fs;
  test::TempDir state;
  fs.add_cpus(4, 2, kKhz);
  const auto before = fs.snapshot();
  SysfsFrequency freq(read_topology(fs.root()), 0.0, state.path() + "/s");
  std::string why;
  REQUIRE(freq.usable(why));
  REQUIRE(freq.save(plan_for(read_topology(fs.root())), why));
  // State file: private directory, private file.
  struct stat st {};
  REQUIRE(stat((state.path() + "/s").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  REQUIRE(stat(freq.state_file().c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(fs.read("devices/system/cpu/cpufreq/policy0/scaling_governor") == "userspace");

  freq.domain_level_changed(1, 1, 1.4e9, 0);
  CHECK(wait_for([&] { return fs.read("devices/system/cpu/cpufreq/policy2/scaling_setspeed") == "1400000"; }));
  freq.domain_level_changed(1, 0, 2.4e9, 0);
  CHECK(wait_for([&] { return fs.read("devices/system/cpu/cpufreq/policy2/scaling_setspeed") == "2400000"; }));
  // The applier counts a transition after its write returns: wait for the count too.
  CHECK(wait_for([&] { return freq.applied_transitions(1) == 1; }));
  CHECK(freq.applied_transitions(1) == 1);

  const RestoreOutcome out = freq.restore();
  CHECK(out.ok());
  CHECK(out.restored.size() == 2);
  CHECK(fs.snapshot() == before);
  CHECK_FALSE(std::filesystem::exists(freq.state_file()));
}

TEST_CASE("Power.Sysfs.NotUsableWithoutUserspaceGovernor") {
  test::FakeSysfs fs;
  test::TempDir state;
  fs.add_cpus(2, 1, kKhz);
  fs.write("devices/system/cpu/cpufreq/policy0/scaling_available_governors", "performance powersave\n");
  SysfsFrequency freq(read_topology(fs.root()), 0.001, state.path() + "/s");
  std::string why;
  CHECK_FALSE(freq.usable(why));
  CHECK(why.find("userspace") != std::string::npos);
}

TEST_CASE("Power.Sysfs.NotUsableWithoutCpufreq") {
  test::FakeSysfs fs;
  fs.write("devices/system/cpu/online", "0-1\n");
  SysfsFrequency freq(read_topology(fs.root()), 0.001, "");
  std::string why;
  CHECK_FALSE(freq.usable(why));
  CHECK(why.find("no cpufreq") != std::string::npos);
}

TEST_CASE("Power.Sysfs.FailingDomainDoesNotStopOthers") {
  test::FakeSysfs fs;
  test::TempDir state;
  fs.add_cpus(4, 2, kKhz);
  const auto before = fs.snapshot();
  SysfsFrequency freq(read_topology(fs.root()), 0.0, state.path() + "/s");
  std::string why;
  REQUIRE(freq.save(plan_for(read_topology(fs.root())), why));
  // policy0's governor file becomes a directory: writing it back fails.
  const std::string gov0 = fs.policy_dir(0) + "/scaling_governor";
  std::filesystem::remove(gov0);
  std::filesystem::create_directory(gov0);
  const RestoreOutcome out = freq.restore();
  REQUIRE(out.failed.size() == 1);
  CHECK(out.failed[0].find("policy0") != std::string::npos);
  CHECK(out.restored.size() == 1);
  const auto after = fs.snapshot();
  for (const auto& [path, bytes] : before)
    if (path.find("policy2") != std::string::npos) CHECK(after.at(path) == bytes);
  CHECK(std::filesystem::exists(freq.state_file()));  // kept for `rubato restore`
}

TEST_CASE("Power.StateFile.DirectoryChecks") {
  test::TempDir t;
  std::string why;
  CHECK(prepare_state_dir(t.path() + "/ok", why));
  // Group/other access is refused.
  std::filesystem::create_directory(t.path() + "/open");
  chmod((t.path() + "/open").c_str(), 0755);
  CHECK_FALSE(prepare_state_dir(t.path() + "/open", why));
  CHECK(why.find("0700") != std::string::npos);
  // A symlink is never followed.
  std::filesystem::create_directory_symlink(t.path() + "/ok", t.path() + "/link");
  CHECK_FALSE(prepare_state_dir(t.path() + "/link", why));
  // Owned by someone else (we can only arrange that as root).
  if (geteuid() == 0) {
    std::filesystem::create_directory(t.path() + "/theirs");
    chmod((t.path() + "/theirs").c_str(), 0700);
    REQUIRE(chown((t.path() + "/theirs").c_str(), 1, 1) == 0);
    CHECK_FALSE(prepare_state_dir(t.path() + "/theirs", why));
    CHECK(why.find("owned by uid 1") != std::string::npos);
  }
}

TEST_CASE("Power.StateFile.RoundTripAndValidation") {
  MachineState s;
  s.sysfs_root = "/tmp/root with space";
  s.pid = 42;
  s.backend = "sysfs";
  s.policies.push_back({"/tmp/root with space/devices/system/cpu/cpufreq/policy0",
                        {"ondemand\n", "800000\n", "3400000\n", "<unsupported>\n"}});
  std::string why;
  const auto back = decode_state(encode_state(s), why);
  REQUIRE(back);
  CHECK(back->policies[0].content == s.policies[0].content);
  CHECK(validate_state(*back, s.sysfs_root, why));
  CHECK_FALSE(validate_state(*back, "/sys", why));  // another root
  MachineState evil = s;
  evil.policies[0].dir = s.sysfs_root + "/devices/system/cpu/cpufreq/policy0/../../../../../etc";
  CHECK_FALSE(validate_state(evil, s.sysfs_root, why));
  evil.policies[0].dir = "/etc";
  CHECK_FALSE(validate_state(evil, s.sysfs_root, why));
  evil = s;
  evil.policies[0].dir = s.sysfs_root + "/devices/system/cpu/cpu3/cpufreq";
  CHECK(validate_state(evil, s.sysfs_root, why));
  CHECK_FALSE(decode_state("rubato-state 1\nroot /x\n", why));  // truncated
  CHECK_FALSE(decode_state("something else\n", why));
}

TEST_CASE("Power.Restore.SigkillThenRubatoRestoreIsByteExact") {
  ChildOnFakeTree t(4, 2);
  const int status = t.start("fixed:1.4GHz", "1400000")->signal_and_wait(SIGKILL);
  CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL));
  CHECK(t.fs.snapshot() != t.before);  // left changed by the killed child
  const auto results = restore_saved_states(std::nullopt, t.state.path(), t.fs.root());
  REQUIRE(results.size() == 1);
  CHECK_FALSE(results[0].skipped);
  CHECK(results[0].outcome.ok());
  CHECK(t.fs.snapshot() == t.before);
  CHECK(list_state_files(t.state.path()).empty());
}

TEST_CASE("Power.Restore.SigtermRestoresWithoutRubatoRestore") {
  ChildOnFakeTree t(4, 2, "schedutil");
  const int status = t.start("fixed:1.6GHz", "1600000")->signal_and_wait(SIGTERM);
  // The default action still happens after our restore (chained).
  CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM));
  CHECK(t.fs.snapshot() == t.before);
  CHECK(list_state_files(t.state.path()).empty());
}

TEST_CASE("Power.Restore.SigtermChainsToTheProgramsHandler") {
  ChildOnFakeTree t(2);
  const int status = t.start("fixed:1.4GHz", "1400000", "own-handler")->signal_and_wait(SIGTERM);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 7));  // the program's own handler ran after our restore
  CHECK(t.fs.snapshot() == t.before);
}

TEST_CASE("Power.Restore.LiveProcessIsSkippedUnlessNamed") {
  ChildOnFakeTree t(2);
  const auto child = t.start("fixed:1.4GHz", "1400000");
  auto results = restore_saved_states(std::nullopt, t.state.path(), t.fs.root());
  REQUIRE(results.size() == 1);
  CHECK(results[0].skipped);
  CHECK(results[0].why.find("still running") != std::string::npos);
  // Validation against another root refuses the file.
  results = restore_saved_states(results[0].file, t.state.path(), "/sys");
  CHECK(results[0].skipped);
  CHECK(results[0].why.find("refused") != std::string::npos);
  // Named explicitly: restored even though the process lives.
  results = restore_saved_states(results[0].file, t.state.path(), t.fs.root());
  CHECK(results[0].outcome.ok());
  CHECK(t.fs.snapshot() == t.before);
}

TEST_CASE("Power.Session.SysfsBackendOnFakeTree") {
  test::FakeSysfs fs;
  test::TempDir state;
  fs.add_cpus(2, 1, kKhz);
  const auto before = fs.snapshot();
  auto env = child_env(fs, state, "workpath");
  env.emplace_back("RUBATO_MIN_DWELL", "0");
  auto s = Session::open(env, {"test", "none", true});
  REQUIRE(s);
  s->worker_started(0);
  s->worker_started(1);
  // The starting frequency first (else the applier may merge it with the next request).
  CHECK(wait_for([&] { return fs.read("devices/system/cpu/cpufreq/policy1/scaling_setspeed") == "2400000"; }));
  s->engine().push(0);
  s->engine().steal(1, 0);  // thief procrastination: worker 1 one tempo slower
  CHECK(wait_for([&] { return fs.read("devices/system/cpu/cpufreq/policy1/scaling_setspeed") == "1400000"; }));
  s->engine().idle(0);  // immediacy relay: worker 1 back up
  CHECK(wait_for([&] { return fs.read("devices/system/cpu/cpufreq/policy1/scaling_setspeed") == "2400000"; }));
  const Report& r = s->finish();
  CHECK(r.backend == "sysfs");
  CHECK(r.energy.source == "modeled:generic");
  std::uint64_t applied = 0;
  for (const auto& d : r.domains) applied += d.applied_transitions;
  CHECK(applied == 2);
  CHECK(fs.snapshot() == before);  // restored at finish
}

TEST_CASE("Power.Session.SysfsWithoutPrivateStateDirFallsBack") {
  test::FakeSysfs fs;
  test::TempDir state;
  fs.add_cpus(2, 1, kKhz);
  const auto before = fs.snapshot();
  std::filesystem::create_directory(state.path() + "/open");
  chmod((state.path() + "/open").c_str(), 0755);
  auto env = child_env(fs, state, "workpath");
  env.emplace_back("RUBATO_STATE_DIR", state.path() + "/open");  // the later value wins
  auto s = Session::open(env, {"test", "none", true});
  REQUIRE(s);
  s->worker_started(0);
  const Report& r = s->finish();
  CHECK(r.backend == "dry-run");  // decisions recorded only: never emulated unasked
  CHECK(r.backend_note.find("cannot save machine state") != std::string::npos);
  CHECK(fs.snapshot() == before);  // nothing was touched
}
