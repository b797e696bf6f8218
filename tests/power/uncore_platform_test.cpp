// What `rubato info` says about the uncore, on fake /proc/cpuinfo, sysfs and
// /dev trees: Intel with and without intel_uncore_frequency (which module to
// load), AMD before Zen 3 (no OS-level data-fabric control), Zen 3 EPYC with
// and without the HSMP driver, a desktop Zen 3, a virtual machine.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "uncore_fake_tree.hpp"
#include "rubato/core/config/settings.hpp"
#include "rubato/power/frequency/uncore_platform.hpp"
#include "rubato/power/machine/machine_info.hpp"

using namespace rubato;

namespace {

std::string cpuinfo(const std::string& vendor, int family, int model, const std::string& name,
                    const std::string& flags = "fpu sse2 avx2") {
  std::string block = "processor\t: 0\nvendor_id\t: " + vendor + "\ncpu family\t: " + std::to_string(family) +
                      "\nmodel\t\t: " + std::to_string(model) + "\nmodel name\t: " + name + "\nflags\t\t: " + flags +
                      "\n\n";
  std::string second = block;
  second.replace(second.find("processor\t: 0"), 13, "processor\t: 1");
  return block + second;
}

bool any_has(const std::vector<std::string>& lines, const std::string& needle) {
  for (const auto& l : lines)
    if (l.find(needle) != std::string::npos) return true;
  return false;
}

struct Platform {
  test::FakeSysfs fs;
  test::TempDir dev;
  UncorePlatform describe(const std::string& text) {
    return describe_uncore_platform(parse_cpu_identity(text), read_topology(fs.root()), dev.path());
  }
};

}  // namespace

TEST_CASE("Power.UncorePlatform.CpuIdentityFromCpuinfo") {
  const CpuIdentity id =
      parse_cpu_identity(cpuinfo("AuthenticAMD", 25, 1, "AMD EPYC 7763 64-Core Processor", "fpu sse2 hypervisor avx2"));
  CHECK(id.vendor == "AuthenticAMD");
  CHECK(id.family == 0x19);
  CHECK(id.model == 1);
  CHECK(id.model_name == "AMD EPYC 7763 64-Core Processor");
  CHECK(id.hypervisor);
  CHECK_FALSE(parse_cpu_identity(cpuinfo("GenuineIntel", 6, 85, "x", "fpu hypervisorx")).hypervisor);
  CHECK(parse_cpu_identity("").family == -1);
}

TEST_CASE("Power.UncorePlatform.IntelWithTheDriverCanMoveIt") {
  Platform p;
  test::add_two_packages_two_dies(p.fs);
  const UncorePlatform u = p.describe(cpuinfo("GenuineIntel", 6, 85, "Intel(R) Xeon(R) Gold 6154 CPU @ 3.00GHz"));
  CHECK(u.interface == "intel_uncore_frequency");
  CHECK(u.rubato_can_move);
  CHECK(any_has(u.can, "4 domain(s)"));
  CHECK(u.cannot.empty());
}

TEST_CASE("Power.UncorePlatform.IntelWithoutTheDriverSaysWhichModuleToLoad") {
  Platform p;
  p.fs.write("devices/system/cpu/online", "0-1\n");
  UncorePlatform u = p.describe(cpuinfo("GenuineIntel", 6, 85, "Intel(R) Xeon(R) Gold 6154 CPU @ 3.00GHz"));
  CHECK(u.interface == "none");
  CHECK_FALSE(u.rubato_can_move);
  CHECK(any_has(u.cannot, "modprobe intel_uncore_frequency "));
  // Granite Rapids (family 6 model 0xAD): the TPMI module.
  u = p.describe(cpuinfo("GenuineIntel", 6, 0xAD, "Intel(R) Xeon(R) 6972P"));
  CHECK(any_has(u.cannot, "modprobe intel_uncore_frequency_tpmi"));
  // Loaded, yet no domain: the model is not one it supports.
  p.fs.write("module/intel_uncore_frequency/refcnt", "0\n");
  u = p.describe(cpuinfo("GenuineIntel", 6, 85, "x"));
  CHECK(any_has(u.cannot, "lists no domain"));
  // In a virtual machine the uncore is the host's: no module to load.
  u = p.describe(cpuinfo("GenuineIntel", 6, 85, "x", "fpu hypervisor"));
  CHECK(any_has(u.cannot, "virtual machine"));
  CHECK_FALSE(any_has(u.cannot, "modprobe"));
  u = p.describe(cpuinfo("AuthenticAMD", 0x19, 0x11, "AMD EPYC 9B14", "fpu hypervisor"));
  CHECK(u.cannot.size() == 1);
  CHECK(any_has(u.cannot, "virtual machine"));
}

TEST_CASE("Power.UncorePlatform.AmdBeforeZen3HasNoOsLevelDataFabricControl") {
  Platform p;
  p.fs.write("devices/system/cpu/online", "0-1\n");
  // Opteron 6378 (Piledriver, family 15h), EPYC 7502 (Zen 2, family 17h), Hygon (family 18h).
  for (const auto& [family, model] : {std::pair{0x15, 2}, std::pair{0x17, 0x31}, std::pair{0x18, 0}}) {
    INFO("family " << family);
    const UncorePlatform u = p.describe(cpuinfo(family == 0x18 ? "HygonGenuine" : "AuthenticAMD", family, model, "x"));
    CHECK(u.interface == "none");
    CHECK_FALSE(u.rubato_can_move);
    CHECK(u.can.empty());
    CHECK(any_has(u.cannot, "no OS-level control before Zen 3"));
  }
}

TEST_CASE("Power.UncorePlatform.Zen3EpycHsmpWhereTheDriverIs") {
  Platform p;
  p.fs.write("devices/system/cpu/online", "0-1\n");
  const std::string milan = cpuinfo("AuthenticAMD", 0x19, 0x01, "AMD EPYC 7763 64-Core Processor");
  UncorePlatform u = p.describe(milan);
  CHECK(u.interface == "none");
  CHECK(any_has(u.cannot, "modprobe amd_hsmp"));
  p.fs.write("module/amd_hsmp/refcnt", "0\n");
  u = p.describe(milan);
  CHECK(any_has(u.cannot, "driver is loaded but"));
  std::ofstream(p.dev.file("hsmp")) << "";
  u = p.describe(milan);
  CHECK(u.interface == "amd_hsmp");
  CHECK_FALSE(u.rubato_can_move);
  CHECK(any_has(u.can, "HSMP_SET_DF_PSTATE"));
  CHECK(any_has(u.cannot, "rubato does not drive HSMP"));
  // Zen 5 EPYC (family 1Ah model 02h) too.
  CHECK(p.describe(cpuinfo("AuthenticAMD", 0x1A, 0x02, "AMD EPYC 9755")).interface == "amd_hsmp");
}

TEST_CASE("Power.UncorePlatform.DesktopZen3HasNoHsmp") {
  Platform p;
  p.fs.write("devices/system/cpu/online", "0-1\n");
  std::ofstream(p.dev.file("hsmp")) << "";
  const UncorePlatform u = p.describe(cpuinfo("AuthenticAMD", 0x19, 0x21, "AMD Ryzen 9 5950X 16-Core Processor"));
  CHECK(u.interface == "none");
  CHECK(any_has(u.cannot, "EPYC server parts only"));
}

TEST_CASE("Power.UncorePlatform.MachineInfoReadsTheGivenPaths") {
  test::FakeSysfs fs;
  test::TempDir dir;
  test::add_two_packages_two_dies(fs);
  std::ofstream(dir.file("cpuinfo")) << cpuinfo("GenuineIntel", 6, 85, "Intel(R) Xeon(R) Gold 6154 CPU @ 3.00GHz");
  Diagnostics diag;
  const Settings settings = load_settings({{"RUBATO_SYSFS_ROOT", fs.root()},
                                           {"RUBATO_STATE_DIR", dir.path() + "/state"},
                                           {"RUBATO_PROFILE", "generic"},
                                           {"RUBATO_PROFILE_DIR", RUBATO_TEST_PROFILES_DIR}},
                                          diag);
  const MachineInfo m = gather_machine_info(settings, {dir.file("cpuinfo"), dir.path()});
  CHECK(m.cpu.vendor == "GenuineIntel");
  CHECK(m.cpu_model == "Intel(R) Xeon(R) Gold 6154 CPU @ 3.00GHz");
  CHECK(m.topology.uncore_domains.size() == 4);
  CHECK(m.uncore.usable);
  CHECK(m.uncore_platform.rubato_can_move);
  CHECK(any_has(m.uncore_platform.can, "intel_uncore_frequency"));
}
