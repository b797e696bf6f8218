// Faults around a run that rubato must absorb: the RAPL
// energy counter wrapping during the run, the energy counter vanishing, and
// the report's directory disappearing, filling up or turning read-only
// before the report is written — one stderr line, the program's output and
// exit status unchanged.
#include <cstdlib>

#include "fault_scene.hpp"
#include "read_report.hpp"

using namespace rubato;
using test::run_quietly;
using test::tool_on_path;
namespace fs = std::filesystem;

namespace {

// A RAPL package zone (and its dram subzone) in the fake tree.
void add_rapl(test::FakeSysfs& tree, const std::string& package_uj, const std::string& dram_uj) {
  tree.write("class/powercap/intel-rapl:0/name", "package-0\n");
  tree.write("class/powercap/intel-rapl:0/energy_uj", package_uj + "\n");
  tree.write("class/powercap/intel-rapl:0/max_energy_range_uj", "1000000000\n");
  tree.write("class/powercap/intel-rapl:0:0/name", "dram\n");
  tree.write("class/powercap/intel-rapl:0:0/energy_uj", dram_uj + "\n");
  tree.write("class/powercap/intel-rapl:0:0/max_energy_range_uj", "1000000000\n");
}

}  // namespace

TEST_CASE("Reliability.RunFaults.EnergyCounterWrapsDuringTheRun") {
  test::TickerOnFakeTree scene;
  // 999 J of a 1000 J range: the package counter wraps while the program runs.
  add_rapl(scene.tree, "999000000", "5000000");
  scene.start({.backend = "emulated"});
  // Replaced in one step: the meter polls the counters while the program
  // runs, and a poll between a truncate and a write would read an empty file
  // (a failed reading: no measured figure at all).
  scene.tree.replace("class/powercap/intel-rapl:0/energy_uj", "2500000\n");    // 999 -> 1000 = 0 -> 2.5: 3.5 J
  scene.tree.replace("class/powercap/intel-rapl:0:0/energy_uj", "6000000\n");  // dram +1 J
  const auto r = scene.stop();
  INFO(r.err);
  CHECK(r.ok());
  CHECK(r.out == "fib(20) = 6765\n");
  CHECK(test::rubato_lines(r.err).empty());
  const auto report = test::read_report(scene.report);
  REQUIRE(report);
  CHECK(report->energy.source == "measured:rapl");
  CHECK(report->energy.joules == Approx(4.5));
}

TEST_CASE("Reliability.RunFaults.EnergyCounterVanishesDuringTheRun") {
  test::TickerOnFakeTree scene;
  add_rapl(scene.tree, "1000", "1000");
  scene.start({.backend = "emulated"});
  fs::remove(scene.tree.root() + "/class/powercap/intel-rapl:0/energy_uj");
  const auto r = scene.stop();
  INFO(r.err);
  CHECK(r.ok());
  CHECK(r.out == "fib(20) = 6765\n");
  const auto report = test::read_report(scene.report);
  REQUIRE(report);
  // The measured figure is gone: the report says why and falls back to the model, marked as such.
  CHECK(test::has_note(*report, "measured energy unavailable"));
  CHECK(report->energy.source.rfind("modeled:", 0) == 0);
}

TEST_CASE("Reliability.RunFaults.ReportDirectoryDisappears") {
  test::TickerOnFakeTree scene;
  const std::string dir = scene.tmp.path() + "/reports";
  fs::create_directory(dir);
  scene.start({.env = {{"RUBATO_REPORT", dir + "/r.json"}}, .end = "exit3", .backend = "emulated"});
  fs::remove_all(dir);
  const auto r = scene.stop();
  INFO(r.err);
  CHECK(r.exited);
  CHECK(r.exit_code == 3);  // the program's own status, untouched
  CHECK(r.out == "fib(20) = 6765\n");
  const auto lines = test::rubato_lines(r.err);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].find("cannot write the report") != std::string::npos);
  CHECK(lines[0].find("No such file or directory") != std::string::npos);
}

TEST_CASE("Reliability.RunFaults.ReportDirectoryFillsOrTurnsReadOnly") {
  // A small tmpfs for the reports, mounted in the program's own mount
  // namespace (nothing outlives the test), filled or remounted read-only
  // while the program runs.
  const std::string unshare = tool_on_path("unshare"), nsenter = tool_on_path("nsenter");
  if (::geteuid() != 0 || unshare.empty() || nsenter.empty() ||
      !run_quietly(unshare + " --mount --propagation private sh -c 'mount -t tmpfs -o size=16k tmpfs /mnt'")) {
    WARN("needs root, unshare, nsenter and tmpfs mounts: not run");
    return;
  }
  for (const std::string how : {"full", "read-only"}) {
    INFO(how);
    test::TickerOnFakeTree scene;
    const std::string dir = scene.tmp.path() + "/reports";
    fs::create_directory(dir);
    auto& p = scene.start({.env = {{"RUBATO_REPORT", dir + "/r.json"}},
                           .end = "exit3",
                           .backend = "emulated",
                           .wrapper = {unshare, "--mount", "--propagation", "private", "sh", "-c",
                                       "mount -t tmpfs -o size=16k tmpfs \"$0\" && exec \"$@\"", dir}});
    const std::string in_ns = nsenter + " --target " + std::to_string(p.pid()) + " --mount -- ";
    if (how == "full")
      run_quietly(in_ns + "sh -c 'cat /dev/zero > " + dir + "/filler'");  // fails once full, as intended
    else REQUIRE(run_quietly(in_ns + "mount -o remount,ro " + dir));
    const auto r = scene.stop();
    INFO(r.err);
    CHECK(r.exited);
    CHECK(r.exit_code == 3);
    CHECK(r.out == "fib(20) = 6765\n");
    const auto lines = test::rubato_lines(r.err);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].find("cannot write the report") != std::string::npos);
    CHECK(lines[0].find(how == "full" ? "No space left on device" : "Read-only file system") != std::string::npos);
  }
}
