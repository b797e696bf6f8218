// A cpufreq write that fails mid-run: the sysfs back-end
// degrades to a dry run with one message, the program runs on unchanged, the
// report records it, and the tree is put back (at exit, or by `rubato
// restore` once the file works again when the fault persists).
//
// How the faults are made (we are root here, so file modes alone stop nothing):
// - exact errnos from the kernel's point of view of a driver (EBUSY, EINVAL on
//   write; EACCES, ENOENT on open) by write_fault.c, an LD_PRELOAD interposer;
// - real ones on the tree itself: the file removed (ENOENT), made a directory
//   (EISDIR), a FIFO (ENXIO: it must not block), read-only through a bind
//   mount in the program's own mount namespace (EROFS), and permission bits
//   with root's CAP_DAC_OVERRIDE dropped (EACCES).
#include <fcntl.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <functional>

#include "fault_scene.hpp"
#include "read_report.hpp"

using namespace rubato;
using test::run_quietly;
using test::tool_on_path;
namespace fs = std::filesystem;

namespace {

int count_lines_with(const std::vector<std::string>& lines, const std::string& what) {
  int n = 0;
  for (const auto& l : lines) n += l.find(what) != std::string::npos;
  return n;
}

// After the fault: the run went on unchanged, said so once, the report has it.
void check_degraded(test::TickerOnFakeTree& scene, const test::ProgramResult& r, const std::string& reason) {
  INFO(r.status() << "\n" << r.err);
  CHECK(r.ok());
  CHECK(r.out == "fib(20) = 6765\n");
  const auto lines = test::rubato_lines(r.err);
  CHECK(count_lines_with(lines, "degraded to dry-run") == 1);
  CHECK(count_lines_with(lines, reason) >= 1);
  const auto report = test::read_report(scene.report);
  REQUIRE(report);
  CHECK(test::has_note(*report, "degraded to dry-run"));
  CHECK(report->backend == "sysfs");
}

// Puts what `make(path)` creates in place of file `f` in one step: made beside
// it, then exchanged with it (renameat2 RENAME_EXCHANGE), the old file then
// removed. Removing `f` first and creating the new kind after left a moment in
// which rubato's write found no file at all and degraded for ENOENT instead of
// the fault under test (seen once in a full test run).
void replace_in_one_step(const std::string& f, const std::function<void(const std::string&)>& make) {
  const std::string fresh = f + ".replacement";
  make(fresh);
  REQUIRE(::renameat2(AT_FDCWD, fresh.c_str(), AT_FDCWD, f.c_str(), RENAME_EXCHANGE) == 0);
  fs::remove(fresh);  // the old file, under the other name now
}

// Waits until rubato said it degraded (the fault has happened).
void wait_for_degradation(test::RunningProgram& p) {
  const bool said = test::wait_until([&] { return p.err_so_far().find("degraded to dry-run") != std::string::npos; });
  if (!said) FAIL_CHECK("no degradation message; stderr:\n" << p.err_so_far());
}

}  // namespace

TEST_CASE("Reliability.SysfsFaults.InjectorCountsOnlyTheMatchedFile") {
  // A file opened inside libc (fopen, std::ofstream) that gets the number of a
  // matched file just closed is not that file: its write neither counts nor
  // takes the fault. It did (the ticker's "<stop>.started"), and
  // TransientWriteErrors then waited in vain for its fault.
  test::TempDir tmp;
  const std::string matched = tmp.path() + "/scaling_setspeed", other = tmp.path() + "/other";
  std::ofstream(matched) << "0\n";
  const auto r = test::run_program({test::kFaultProbe, matched, other},
                                   {{"LD_PRELOAD", test::kWriteFault},
                                    {"FAULT_MATCH", "scaling_setspeed"},
                                    {"FAULT_ON", "write"},
                                    {"FAULT_ERRNO", "EBUSY"},
                                    {"FAULT_AFTER", "1"},
                                    {"FAULT_TIMES", "1"}},
                                   tmp.path() + "/run", 30);
  INFO(r.status() << "\n" << r.err);
  REQUIRE(r.ok());
  CHECK(r.out == "matched ok\nother ok\nmatched EBUSY\n");
}

TEST_CASE("Reliability.SysfsFaults.TransientWriteErrors") {
  // EBUSY / EINVAL once: the back-end stops writing, the machine is restored at exit.
  for (const std::string err : {"EBUSY", "EINVAL"}) {
    test::TickerOnFakeTree scene;
    auto& p = scene.start({.env = {{"LD_PRELOAD", test::kWriteFault},
                                   {"FAULT_MATCH", "scaling_setspeed"},
                                   {"FAULT_ON", "write"},
                                   {"FAULT_ERRNO", err},
                                   {"FAULT_AFTER", "2"},
                                   {"FAULT_TIMES", "1"}}});
    wait_for_degradation(p);
    const auto r = scene.stop();
    check_degraded(scene, r, err == "EBUSY" ? "Device or resource busy" : "Invalid argument");
    CHECK(scene.restored());
    CHECK_FALSE(scene.state_left());
  }
}

TEST_CASE("Reliability.SysfsFaults.PersistentOpenErrors") {
  // EACCES / ENOENT from then on: restoring at exit fails too, once per
  // policy, the state file is kept, and `rubato restore` finishes the job.
  for (const std::string err : {"EACCES", "ENOENT"}) {
    test::TickerOnFakeTree scene;
    auto& p = scene.start({.env = {{"LD_PRELOAD", test::kWriteFault},
                                   {"FAULT_MATCH", "scaling_setspeed"},
                                   {"FAULT_ON", "open"},
                                   {"FAULT_ERRNO", err},
                                   {"FAULT_AFTER", "2"}}});
    wait_for_degradation(p);
    const auto r = scene.stop();
    check_degraded(scene, r, err == "EACCES" ? "Permission denied" : "No such file or directory");
    CHECK(count_lines_with(test::rubato_lines(r.err), "restore failed") >= 1);
    CHECK(scene.state_left());
    const auto restore = scene.rubato_restore();
    INFO(restore.out << restore.err);
    CHECK(restore.ok());
    CHECK(scene.restored());
    CHECK_FALSE(scene.state_left());
  }
}

TEST_CASE("Reliability.SysfsFaults.FileTakenAwayMidRun") {
  struct Case {
    std::string name, reason;
    std::function<void(const std::string&)> break_file;
  };
  const std::vector<Case> cases = {
      {"removed", "No such file or directory", [](const std::string& f) { fs::remove(f); }},
      {"directory", "Is a directory",
       [](const std::string& f) { replace_in_one_step(f, [](const std::string& d) { fs::create_directory(d); }); }},
      {"fifo", "No such device or address",
       [](const std::string& f) {
         replace_in_one_step(f, [](const std::string& d) { REQUIRE(::mkfifo(d.c_str(), 0644) == 0); });
       }},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    test::TickerOnFakeTree scene;
    auto& p = scene.start();
    const std::string file = scene.tree.root() + "/" + scene.setspeed(0);
    c.break_file(file);
    wait_for_degradation(p);
    const auto r = scene.stop(60);
    CHECK_FALSE(r.timed_out);
    check_degraded(scene, r, c.reason);
    // The driver comes back: the file is a file again, `rubato restore` puts the rest back.
    fs::remove_all(file);
    std::ofstream(file) << scene.before.at(file);
    const auto restore = scene.rubato_restore();
    INFO(restore.out << restore.err);
    CHECK(restore.ok());
    CHECK(scene.restored());
  }
}

TEST_CASE("Reliability.SysfsFaults.PermissionDeniedWithoutRootOverride") {
  // Root ignores file modes through CAP_DAC_OVERRIDE: the program runs with
  // it (and CAP_DAC_READ_SEARCH) removed from its bounding set, so that
  // chmod 0444 gives the EACCES an unprivileged writer would see.
  const std::string setpriv = tool_on_path("setpriv");
  if (::geteuid() != 0 || setpriv.empty()) {
    WARN("needs root and setpriv (util-linux): not run");
    return;
  }
  test::TickerOnFakeTree scene;
  auto& p = scene.start({.wrapper = {setpriv, "--bounding-set", "-dac_override,-dac_read_search", "--"}});
  const std::string file = scene.tree.root() + "/" + scene.setspeed(0);
  REQUIRE(::chmod(file.c_str(), 0444) == 0);
  wait_for_degradation(p);
  const auto r = scene.stop();
  check_degraded(scene, r, "Permission denied");
  ::chmod(file.c_str(), 0644);
  const auto restore = scene.rubato_restore();
  CHECK(restore.ok());
  CHECK(scene.restored());
}

TEST_CASE("Reliability.SysfsFaults.ReadOnlyMountMidRun") {
  // The policy directory becomes a read-only bind mount — inside the
  // program's own mount namespace (unshare), so nothing outlives the test.
  const std::string unshare = tool_on_path("unshare"), nsenter = tool_on_path("nsenter");
  if (::geteuid() != 0 || unshare.empty() || nsenter.empty() ||
      !run_quietly(unshare + " --mount --propagation private true")) {
    WARN("needs root, unshare and nsenter with mount namespaces: not run");
    return;
  }
  test::TickerOnFakeTree scene;
  auto& p = scene.start({.wrapper = {unshare, "--mount", "--propagation", "private", "--"}});
  const std::string dir = scene.tree.policy_dir(0), pid = std::to_string(p.pid());
  const std::string in_ns = nsenter + " --target " + pid + " --mount -- mount ";
  REQUIRE(run_quietly(in_ns + "--bind " + dir + " " + dir));
  REQUIRE(run_quietly(in_ns + "-o remount,bind,ro " + dir + " " + dir));
  wait_for_degradation(p);
  const auto r = scene.stop();
  check_degraded(scene, r, "Read-only file system");
  // Outside the program's namespace the tree was writable all along.
  const auto restore = scene.rubato_restore();
  CHECK(restore.ok());
  CHECK(scene.restored());
}
