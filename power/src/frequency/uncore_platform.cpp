#include "rubato/power/frequency/uncore_platform.hpp"

#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "rubato/core/tempo/tempo_ladder.hpp"

namespace rubato {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

int parse_int_or(std::string_view s, int fallback) {
  int v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size() ? v : fallback;
}

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

std::string hex_family(int family) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%Xh", static_cast<unsigned>(family));
  return buf;
}

// Intel parts whose uncore is controlled through TPMI (Xeon 6: Granite
// Rapids, Sierra Forest, Clearwater Forest), the intel_uncore_frequency_tpmi
// module: family 6, models 0xAD, 0xAE, 0xAF, 0xDD (arch/x86/include/asm/intel-family.h).
bool intel_uses_tpmi(const CpuIdentity& cpu) {
  return cpu.family == 6 && (cpu.model == 0xAD || cpu.model == 0xAE || cpu.model == 0xAF || cpu.model == 0xDD);
}

// Linux Documentation/arch/x86/amd_hsmp.rst: family 19h models 00-1Fh,
// 30-3Fh, 90-9Fh, A0-AFh and family 1Ah models 00-1Fh (EPYC, MI300A) have HSMP.
bool amd_has_hsmp(const CpuIdentity& cpu) {
  const int m = cpu.model;
  if (cpu.family == 0x19)
    return (m >= 0x00 && m <= 0x1F) || (m >= 0x30 && m <= 0x3F) || (m >= 0x90 && m <= 0x9F) || (m >= 0xA0 && m <= 0xAF);
  return cpu.family == 0x1A && m >= 0x00 && m <= 0x1F;
}

void describe_intel(const CpuIdentity& cpu, const Topology& t, UncorePlatform& p) {
  if (!t.uncore_domains.empty()) {
    const auto& u = t.uncore_domains.front();
    p.interface = "intel_uncore_frequency";
    p.rubato_can_move = true;
    p.can.push_back("uncore frequency per package / die: intel_uncore_frequency, " +
                    std::to_string(t.uncore_domains.size()) + " domain(s), " + format_frequency(u.initial_min_hz) +
                    ".." + format_frequency(u.initial_max_hz) +
                    " in 100 MHz steps (RUBATO_UNCORE pins it; a policy moves it at run time)");
    return;
  }
  const std::string module = intel_uses_tpmi(cpu) ? "intel_uncore_frequency_tpmi" : "intel_uncore_frequency";
  if (exists(t.sysfs_root + "/module/" + module))
    p.cannot.push_back("uncore frequency: " + module +
                       " is loaded but lists no domain (this CPU model is not one it supports)");
  else
    p.cannot.push_back("uncore frequency: the driver is not loaded: modprobe " + module + " (then " + t.sysfs_root +
                       "/devices/system/cpu/intel_uncore_frequency/ lists the domains)");
}

void describe_amd_hsmp(const Topology& t, const std::string& dev_root, UncorePlatform& p) {
  const bool driver = exists(t.sysfs_root + "/module/amd_hsmp") || exists(t.sysfs_root + "/module/hsmp_acpi");
  const bool device = exists(dev_root + "/hsmp");
  if (device) {
    p.interface = "amd_hsmp";
    p.can.push_back(
        "data-fabric P-state per socket: HSMP through " + dev_root +
        "/hsmp (amd_hsmp driver; messages HSMP_SET_DF_PSTATE, HSMP_SET_AUTO_DF_PSTATE; writing needs root)");
    p.cannot.push_back("rubato does not drive HSMP: it reports it only; its uncore lever here is modelled");
    return;
  }
  p.cannot.push_back(driver ? "data-fabric P-state: the HSMP driver is loaded but " + dev_root + "/hsmp is missing"
                            : "data-fabric P-state: this EPYC has HSMP, the driver is not loaded: modprobe amd_hsmp "
                              "(hsmp_acpi where the firmware describes HSMP in ACPI); rubato does not drive it");
}

void describe_amd(const CpuIdentity& cpu, const Topology& t, const std::string& dev_root, UncorePlatform& p) {
  const std::string family = cpu.family < 0 ? std::string("family (unknown)") : "family " + hex_family(cpu.family);
  if (cpu.family < 0x19) {
    p.cannot.push_back("data-fabric (uncore) frequency: no OS-level control before Zen 3 (this is " + family +
                       "; Zen 3 is family 19h): the firmware sets it");
    return;
  }
  if (amd_has_hsmp(cpu)) return describe_amd_hsmp(t, dev_root, p);
  p.cannot.push_back("data-fabric (uncore) frequency: no OS-level control on this " + family +
                     " model: HSMP exists on EPYC server parts only");
}

}  // namespace

CpuIdentity parse_cpu_identity(std::string_view text) {
  CpuIdentity id;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (trim(line).empty() && !id.vendor.empty()) break;  // the first CPU's block ends
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    // The first value of each key: the first CPU's.
    if (key == "vendor_id" && id.vendor.empty()) id.vendor = value;
    else if (key == "cpu family" && id.family < 0) id.family = parse_int_or(value, -1);
    else if (key == "model" && id.model < 0) id.model = parse_int_or(value, -1);
    else if (key == "model name" && id.model_name.empty()) id.model_name = value;
    else if (key == "flags")
      id.hypervisor |= (" " + std::string(value) + " ").find(" hypervisor ") != std::string::npos;
  }
  return id;
}

CpuIdentity read_cpu_identity(const std::string& cpuinfo_path) {
  std::ifstream in(cpuinfo_path);
  std::ostringstream text;
  text << in.rdbuf();
  return parse_cpu_identity(text.str());
}

UncorePlatform describe_uncore_platform(const CpuIdentity& cpu, const Topology& topology, const std::string& dev_root) {
  UncorePlatform p;
  // In a guest no module to load would help: say that alone.
  if (cpu.hypervisor && topology.uncore_domains.empty()) {
    p.cannot.push_back(
        "uncore / data-fabric frequency: a virtual machine (hypervisor flag): it belongs to the "
        "host; no driver in the guest can set it");
    return p;
  }
  if (cpu.vendor == "GenuineIntel") describe_intel(cpu, topology, p);
  else if (cpu.vendor == "AuthenticAMD" || cpu.vendor == "HygonGenuine") describe_amd(cpu, topology, dev_root, p);
  else if (!topology.uncore_domains.empty()) describe_intel(cpu, topology, p);  // the driver speaks for itself
  else
    p.cannot.push_back("uncore frequency: no interface known to rubato for " +
                       (cpu.vendor.empty() ? std::string("this CPU (no vendor_id in /proc/cpuinfo)") : cpu.vendor));
  return p;
}

}  // namespace rubato
