// Security of state files and restore (tests/RELIABILITY.md, "Security
// measures"). Every test puts a stand-in file outside the fake tree where an
// attacker would aim, and checks that it keeps its bytes: no test goes near a
// real system file.
#include <grp.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include <catch2/catch.hpp>
#include <filesystem>

#include "fake_sysfs.hpp"
#include "reliability_paths.hpp"
#include "rubato/power/session/session.hpp"
#include "rubato/power/state/state_file.hpp"
#include "child_process.hpp"

using namespace rubato;
namespace fs = std::filesystem;

namespace {

const std::vector<long> kKhz = {2400000, 1900000, 1400000};
const std::string kPrecious = "precious bytes\n";

// A fake tree, a private state directory, and a stand-in outside the tree.
struct Scene {
  test::FakeSysfs tree;
  test::TempDir tmp;
  std::string state_dir, outside, stand_in;
  std::map<std::string, std::string> before;

  Scene() {
    tree.add_cpus(2, 1, kKhz);
    before = tree.snapshot();
    state_dir = tmp.path() + "/state";
    fs::create_directory(state_dir);
    fs::permissions(state_dir, fs::perms::owner_all);
    // A directory shaped like a cpufreq policy, outside the tree.
    outside = tmp.path() + "/outside";
    fs::create_directory(outside);
    for (const char* f : kCpufreqControlFiles) std::ofstream(outside + "/" + f) << kPrecious;
    stand_in = tmp.path() + "/stand-in";
    std::ofstream(stand_in) << kPrecious;
  }
  bool outside_untouched() const {
    for (const char* f : kCpufreqControlFiles)
      if (test::read_file(outside + "/" + f) != kPrecious) return false;
    return test::read_file(stand_in) == kPrecious;
  }
  Environment env(const std::string& policy = "fixed:1.4GHz") const {
    return {{"RUBATO_BACKEND", "sysfs"},     {"RUBATO_SYSFS_ROOT", tree.root()},
            {"RUBATO_STATE_DIR", state_dir}, {"RUBATO_POLICY", policy},
            {"RUBATO_REPORT", ""},           {"RUBATO_PROFILE_DIR", test::kProfilesDir}};
  }
  // A state file (ours, 0600, in the private directory) naming `dirs`.
  std::string state_naming(const std::vector<std::string>& dirs, const std::string& root = "") {
    MachineState s;
    s.sysfs_root = root.empty() ? tree.root() : root;
    s.pid = 999999999;
    s.backend = "sysfs";
    for (const auto& d : dirs) s.policies.push_back({d, {"userspace\n", "1400000\n", "1400000\n", "1400000\n"}});
    std::string path, why;
    REQUIRE(write_state_file(state_dir, s, path, why));
    return path;
  }
  test::ProgramResult restore(const std::string& state_file) const {
    return test::run_program({test::kRubatoCli, "restore", "--state", state_file},
                             {{"RUBATO_SYSFS_ROOT", tree.root()}, {"RUBATO_STATE_DIR", state_dir}},
                             tmp.path() + "/restore-run");
  }
};

}  // namespace

TEST_CASE("Reliability.Security.SymlinkPlantedAtStatePathIsRefused") {
  Scene s;
  // The state file's name is predictable (cpufreq-<pid>.state): plant a link there.
  const std::string planted = s.state_dir + "/cpufreq-" + std::to_string(::getpid()) + ".state";
  SECTION("link to an existing file") { fs::create_symlink(s.stand_in, planted); }
  SECTION("dangling link (would create the target)") { fs::create_symlink(s.tmp.path() + "/created", planted); }
  auto session = Session::open(s.env(), {"test", "none", true});
  REQUIRE(session);
  session->worker_started(0);
  const Report& r = session->finish();
  // The sysfs back-end could not record the state, so it never took control.
  CHECK(r.backend == "dry-run");
  CHECK(r.backend_note.find("cannot create state file") != std::string::npos);
  CHECK(s.outside_untouched());
  CHECK_FALSE(test::path_exists(s.tmp.path() + "/created"));
  CHECK(s.tree.snapshot() == s.before);
  CHECK(fs::is_symlink(planted));  // left as found
}

TEST_CASE("Reliability.Security.StateDirectoryMustBePrivate") {
  Scene s;
  std::string dir;
  SECTION("a symlink to a private directory") {
    dir = s.tmp.path() + "/link";
    fs::create_directory_symlink(s.state_dir, dir);
  }
  SECTION("world-writable, sticky (like /tmp)") {
    dir = s.tmp.path() + "/shared";
    fs::create_directory(dir);
    ::chmod(dir.c_str(), 01777);
  }
  SECTION("group-readable") {
    dir = s.tmp.path() + "/group";
    fs::create_directory(dir);
    ::chmod(dir.c_str(), 0750);
  }
  SECTION("owned by another user") {
    if (::geteuid() != 0) return;  // only root can hand a directory to someone else
    dir = s.tmp.path() + "/theirs";
    fs::create_directory(dir);
    ::chmod(dir.c_str(), 0700);
    REQUIRE(::chown(dir.c_str(), 1, 1) == 0);
  }
  auto env = s.env();
  env.emplace_back("RUBATO_STATE_DIR", dir);  // the later value wins
  auto session = Session::open(env, {"test", "none", true});
  REQUIRE(session);
  session->worker_started(0);
  const Report& r = session->finish();
  CHECK(r.backend == "dry-run");
  CHECK(r.backend_note.find("cannot save machine state") != std::string::npos);
  CHECK(s.tree.snapshot() == s.before);
  CHECK(fs::is_empty(s.state_dir));
}

TEST_CASE("Reliability.Security.RestoreRefusesPathsOutsideTheCpufreqTree") {
  Scene s;
  const std::string policy0 = s.tree.policy_dir(0);
  std::string named, expect;
  SECTION("absolute path of the stand-in policy") {
    named = s.outside;
    expect = "not a cpufreq policy directory";
  }
  SECTION("dot-dot out of the tree") {
    named = policy0 + "/../../../../../../" + fs::path(s.outside).filename().string();
    expect = "not a cpufreq policy directory";
  }
  SECTION("a policy directory that is a symlink leading out") {
    fs::create_directory_symlink(s.outside, s.tree.cpu_dir() + "/cpufreq/policy7");
    named = s.tree.cpu_dir() + "/cpufreq/policy7";
    expect = "outside";
  }
  SECTION("a cpuN/cpufreq symlink leading out") {
    fs::create_directories(s.tree.cpu_dir() + "/cpu5");
    fs::create_directory_symlink(s.outside, s.tree.cpu_dir() + "/cpu5/cpufreq");
    named = s.tree.cpu_dir() + "/cpu5/cpufreq";
    expect = "outside";
  }
  const std::string state = s.state_naming({policy0, named});
  const auto r = s.restore(state);
  INFO(r.out << r.err);
  CHECK(r.exited);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("refused") != std::string::npos);
  CHECK(r.out.find(expect) != std::string::npos);
  CHECK(s.outside_untouched());
  CHECK(s.tree.snapshot() == s.before);  // not even the valid policy0: the whole file is refused
  CHECK(test::path_exists(state));       // kept for inspection
}

TEST_CASE("Reliability.Security.RestoreRefusesForeignOrDamagedStateFiles") {
  Scene s;
  std::string state, expect;
  SECTION("saved for another sysfs root") {
    // The stand-in policy lies in a tree of its own; RUBATO_SYSFS_ROOT decides which tree may be written.
    const std::string other = s.tmp.path() + "/other-root";
    const std::string dir = other + "/devices/system/cpu/cpufreq/policy0";
    fs::create_directories(fs::path(dir).parent_path());
    fs::create_directory_symlink(s.outside, dir);
    state = s.state_naming({dir}, other);
    expect = "saved for sysfs root";
  }
  SECTION("owned by another user") {
    if (::geteuid() != 0) return;
    state = s.state_naming({s.tree.policy_dir(0)});
    REQUIRE(::chown(state.c_str(), 1, 1) == 0);
    expect = "not a regular file of ours";
  }
  SECTION("a symlink to a state file") {
    const std::string real = s.state_naming({s.tree.policy_dir(0)});
    state = s.state_dir + "/link.state";
    fs::create_symlink(real, state);
    expect = "refused";
  }
  SECTION("damaged on disk (one byte changed)") {
    state = s.state_naming({s.tree.policy_dir(0)});
    std::string text = test::read_file(state);
    const std::size_t at = text.find("file scaling_max_freq ") + 22;
    text[at] = text[at] == '3' ? '2' : '3';  // still valid hex, another frequency
    std::ofstream(state, std::ios::trunc | std::ios::binary) << text;
    expect = "checksum mismatch";
  }
  const auto r = s.restore(state);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find(expect) != std::string::npos);
  CHECK(s.outside_untouched());
  CHECK(s.tree.snapshot() == s.before);
}

TEST_CASE("Reliability.Security.RestoreNeverFollowsALinkedControlFile") {
  Scene s;
  const std::string state = s.state_naming({s.tree.policy_dir(0)});
  // scaling_governor replaced by a link to the stand-in: the write must not go through it.
  const std::string gov = s.tree.policy_dir(0) + "/scaling_governor";
  fs::remove(gov);
  fs::create_symlink(s.stand_in, gov);
  const auto r = s.restore(state);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("FAILED") != std::string::npos);
  CHECK(s.outside_untouched());
  CHECK(test::path_exists(state));  // kept for another try
}

TEST_CASE("Reliability.Security.RestoreFollowsTheKernelsOwnLinks") {
  // Real sysfs: cpuN/cpufreq is a symlink to ../cpufreq/policyN. A state file
  // naming that form restores into the policy inside the tree.
  Scene s;
  fs::create_directories(s.tree.cpu_dir() + "/cpu0");
  fs::create_directory_symlink("../cpufreq/policy0", s.tree.cpu_dir() + "/cpu0/cpufreq");
  const auto r = s.restore(s.state_naming({s.tree.cpu_dir() + "/cpu0/cpufreq"}));
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("restored") != std::string::npos);
  CHECK(s.tree.read("devices/system/cpu/cpufreq/policy0/scaling_governor") == "userspace\n");
  CHECK(s.outside_untouched());
}

// RUBATO_REPORT and RUBATO_TRACE are the user's own paths; what lies at that
// path is not trusted: a link, another hard link, a FIFO, a directory.
TEST_CASE("Reliability.Security.OutputPathsAreNeverTurnedAgainstTheHost") {
  Scene s;
  const std::string target = s.tmp.path() + "/out";
  std::string what;
  SECTION("symlink to the stand-in") {
    what = "symbolic link";
    fs::create_symlink(s.stand_in, target);
  }
  SECTION("hard link to the stand-in") {
    what = "hard links";
    fs::create_hard_link(s.stand_in, target);
  }
  SECTION("FIFO (would block the program at exit)") {
    what = "not a regular file";
    REQUIRE(::mkfifo(target.c_str(), 0600) == 0);
  }
  SECTION("a file of another user") {
    if (::geteuid() != 0) return;
    what = "owned by uid 1";
    std::ofstream(target) << kPrecious;
    REQUIRE(::chown(target.c_str(), 1, 1) == 0);
  }
  for (const std::string variable : {"RUBATO_REPORT", "RUBATO_TRACE"}) {
    const std::string stop = s.tmp.path() + "/stop-" + variable;
    test::EnvList env = {{"OMP_TOOL_LIBRARIES", test::kOmptTool},
                         {"OMP_NUM_THREADS", "2"},
                         {"RUBATO_PROFILE_DIR", test::kProfilesDir},
                         {variable, target}};
    if (variable == "RUBATO_TRACE") env.emplace_back("RUBATO_REPORT", "");
    const auto r = test::run_program({test::kTicker, "15", stop, "0"}, env, s.tmp.path() + "/run-" + variable, 60);
    INFO(variable << ": " << r.err);
    CHECK(r.ok());
    CHECK(r.out == "fib(15) = 610\n");
    const auto lines = test::rubato_lines(r.err);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].find(variable) != std::string::npos);
    CHECK(lines[0].find(what) != std::string::npos);
    CHECK(s.outside_untouched());
  }
}

// A setuid-root program started by an unprivileged user runs in secure-
// execution mode (AT_SECURE): its environment is the user's, so RUBATO_REPORT
// must not make a root process write where the user chose. rubato must not
// start at all, and the program must run as without it. The test installs a
// setuid copy of the ticker in a private directory, so it needs root and a
// file system that honours setuid; elsewhere it says why and checks nothing.
TEST_CASE("Reliability.Security.SecureExecutionKeepsRubatoOut") {
  if (::geteuid() != 0) {
    WARN("not run: installing a setuid test program needs root");
    return;
  }
  test::TempDir tmp;
  struct statvfs fs_info {};
  if (::statvfs(tmp.path().c_str(), &fs_info) != 0 || (fs_info.f_flag & ST_NOSUID)) {
    WARN("not run: " << tmp.path() << " is on a nosuid file system");
    return;
  }
  // nobody must reach the program; only root may write the directory.
  fs::permissions(tmp.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
  const std::string program = tmp.path() + "/ticker";
  fs::copy_file(test::kTicker, program);
  REQUIRE(::chown(program.c_str(), 0, 0) == 0);
  REQUIRE(::chmod(program.c_str(), 04755) == 0);
  const std::string report = tmp.path() + "/report.json";
  const std::string err_path = tmp.path() + "/stderr.txt";
  const std::string out_path = tmp.path() + "/stdout.txt";

  // The unprivileged user: real and effective ids nobody; exec makes the
  // effective id root again through the setuid bit.
  test::SpawnOptions o;
  o.base = test::BaseEnv::empty;
  o.env = {{"OMP_TOOL_LIBRARIES", test::kOmptTool},
           {"RUBATO_REPORT", report},
           {"RUBATO_LOG", "info"},
           {"OMP_NUM_THREADS", "2"}};
  o.out_path = out_path;
  o.err_path = err_path;
  o.before_exec = [] {
    if (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(125);
  };
  const test::ProgramResult run = test::run_program({program, "14", "/nonexistent/stop", "0"}, o);
  const std::string err = test::read_file(err_path);
  INFO("stderr:\n" << err);
  REQUIRE(run.exited);
  REQUIRE(run.exit_code == 0);
  CHECK(test::read_file(out_path).find("fib") != std::string::npos);
  CHECK(err.find("rubato: not started: this program runs in secure-execution mode") != std::string::npos);
  CHECK_FALSE(fs::exists(report));
}
