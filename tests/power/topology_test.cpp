#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "fake_sysfs.hpp"
#include "rubato/power/energy/powercap_meter.hpp"
#include "rubato/power/machine/topology.hpp"

using namespace rubato;

TEST_CASE("Power.Topology.CpuLists") {
  std::vector<int> cpus;
  CHECK(parse_cpu_list("0-3,8,10-11\n", cpus));
  CHECK(cpus == std::vector<int>{0, 1, 2, 3, 8, 10, 11});
  CHECK(parse_cpu_list("5", cpus));
  CHECK(cpus == std::vector<int>{5});
  CHECK_FALSE(parse_cpu_list("3-1", cpus));
  CHECK_FALSE(parse_cpu_list("a", cpus));
  CHECK_FALSE(parse_cpu_list("1,,2", cpus));
}

TEST_CASE("Power.Topology.NoListMeansMinMax") {
  test::FakeSysfs fs;
  fs.add_cpus(2, 2, {});
  const Topology t = read_topology(fs.root());
  REQUIRE(t.clock_domains.size() == 1);
  CHECK(t.clock_domains[0].available_hz.empty());
  CHECK(t.clock_domains[0].min_hz == Approx(1e9));
  // Only the max is offered: the ladder heuristic then picks 0.6 x max itself.
  CHECK(t.available_hz() == std::vector<double>{3e9});
}

TEST_CASE("Power.Topology.ThisMachineReads") {
  const Topology t = read_topology("/sys");
  CHECK_FALSE(t.cpus.empty());
}

TEST_CASE("Power.Powercap.ZonesAndWraparound") {
  test::FakeSysfs fs;
  fs.write("class/powercap/intel-rapl/enabled", "1\n");  // control type: no counter
  fs.write("class/powercap/intel-rapl:0/name", "package-0\n");
  fs.write("class/powercap/intel-rapl:0/energy_uj", "999000000\n");
  fs.write("class/powercap/intel-rapl:0/max_energy_range_uj", "1000000000\n");
  fs.write("class/powercap/intel-rapl:0:0/name", "core\n");
  fs.write("class/powercap/intel-rapl:0:0/energy_uj", "5\n");
  fs.write("class/powercap/intel-rapl:0:0/max_energy_range_uj", "1000000000\n");
  fs.write("class/powercap/intel-rapl:0:1/name", "dram\n");
  fs.write("class/powercap/intel-rapl:0:1/energy_uj", "1000000\n");
  fs.write("class/powercap/intel-rapl:0:1/max_energy_range_uj", "1000000000\n");
  fs.write("class/powercap/intel-rapl:1/name", "psys\n");
  fs.write("class/powercap/intel-rapl:1/energy_uj", "7\n");
  fs.write("class/powercap/intel-rapl:1/max_energy_range_uj", "1000000000\n");
  std::vector<std::string> problems;
  const auto zones = find_powercap_zones(fs.root(), problems);
  REQUIRE(zones.size() == 4);
  int counted = 0;
  for (const auto& z : zones) counted += z.counted;
  CHECK(counted == 2);  // package and dram; core is inside package, psys overlaps

  PowercapMeter meter(fs.root(), 3600);
  std::string why;
  REQUIRE(meter.usable(why));
  REQUIRE(meter.start(why));
  // The package counter wraps: 999 J -> 1000 J (max) -> 2 J, i.e. 3 J; dram +0.5 J.
  fs.replace("class/powercap/intel-rapl:0/energy_uj", "2000000\n");  // the meter's poller reads meanwhile
  fs.replace("class/powercap/intel-rapl:0:1/energy_uj", "1500000\n");
  const EnergyFigure e = meter.stop();
  REQUIRE(e.available);
  CHECK(e.source == "measured:rapl");
  CHECK(e.joules == Approx(3.5));
  CHECK(wrapped_delta_j(10, 4, 12) == Approx(6));
}

TEST_CASE("Power.Powercap.NotUsableWithoutZones") {
  test::FakeSysfs fs;
  PowercapMeter meter(fs.root());
  std::string why;
  CHECK_FALSE(meter.usable(why));
  CHECK(why.find("no RAPL") != std::string::npos);
}

// energy_uj is root-only since Linux 5.10: the reason must say so. Checked in a
// child that drops to an unprivileged user (we can only do that as root).
TEST_CASE("Power.Powercap.PermissionDeniedIsExplained") {
  if (geteuid() != 0) return;
  test::FakeSysfs fs;
  fs.write("class/powercap/intel-rapl:0/name", "package-0\n");
  fs.write("class/powercap/intel-rapl:0/energy_uj", "1\n");
  fs.write("class/powercap/intel-rapl:0/max_energy_range_uj", "1000\n");
  chmod((fs.root() + "/class/powercap/intel-rapl:0/energy_uj").c_str(), 0400);
  std::filesystem::permissions(fs.root(), std::filesystem::perms::all);  // mkdtemp made it 0700
  const pid_t child = fork();
  if (child == 0) {
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(2);
    PowercapMeter meter(fs.root());
    std::string why;
    const bool explained = !meter.usable(why) && why.find("root since Linux 5.10") != std::string::npos;
    _exit(explained ? 0 : 1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
}
