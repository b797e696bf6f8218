#include "rubato/power/likwid/likwid_probe.hpp"

#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <sstream>

#ifdef RUBATO_HAVE_LIKWID
#include <likwid.h>

#include "os/forked_probe.hpp"
#include "likwid/likwid_library.hpp"
#endif

namespace rubato {
namespace {

#ifdef RUBATO_HAVE_LIKWID
// Runs in the child: one line per module, "freq ok <list>" / "freq no <why>", same for power.
std::string child_probe() {
  std::string report;
  if (freq_init() != 0) {
    report += "freq no freq_init failed (no cpufreq access for likwid)\n";
  } else {
    char* avail = freq_getAvailFreq(0);
    char* gov = freq_getGovernor(0);
    if (!avail || !gov) report += "freq no cannot read available frequencies / governor of cpu 0\n";
    else report += std::string("freq ok ") + avail + "\n";
    freq_finalize();
  }
  if (topology_init() != 0) {
    report += "power no topology_init failed\n";
  } else {
    HPMmode(ACCESSMODE_DIRECT);  // never the daemon: it exit()s without one
    if (HPMinit() != 0 || HPMaddThread(0) != 0)
      report += "power no no direct MSR access (needs root and the msr module)\n";
    else if (power_init(0) == 0) report += "power no RAPL not supported by this CPU (per likwid)\n";
    else report += "power ok\n";
  }
  return report;
}
#endif

}  // namespace

std::vector<double> parse_likwid_frequencies(const std::string& text) {
  std::istringstream in(text);
  std::vector<double> hz;
  for (double v; in >> v;) {
    if (v <= 0) continue;
    hz.push_back(v < 1e3 ? v * 1e9 : v < 1e8 ? v * 1e3 : v);  // GHz, kHz or Hz
  }
  std::sort(hz.begin(), hz.end(), std::greater<>());
  hz.erase(std::unique(hz.begin(), hz.end()), hz.end());
  return hz;
}

bool likwid_msr_access(std::string& why) {
  // likwid's direct mode opens /dev/cpu/<n>/msr, or msr_safe, read-write.
  for (const char* dev : {"/dev/cpu/0/msr", "/dev/cpu/0/msr_safe"})
    if (::access(dev, R_OK | W_OK) == 0) return true;
  why = "likwid: no direct MSR access (/dev/cpu/0/msr needs root and the msr module)";
  return false;
}

LikwidProbe probe_likwid(double timeout_s) {
  // One probe per process: it forks, and its answer does not change.
  static std::mutex mutex;
  static std::optional<LikwidProbe> cached;
  std::lock_guard<std::mutex> lock(mutex);
  if (!cached) cached = probe_likwid_uncached(timeout_s);
  return *cached;
}

LikwidProbe probe_likwid_uncached(double timeout_s) {
  LikwidProbe p;
#ifndef RUBATO_HAVE_LIKWID
  (void)timeout_s;
  p.freq_why = p.power_why = "rubato was built without likwid (RUBATO_WITH_LIKWID=OFF)";
  return p;
#else
  p.built = true;
  // Loaded here, in the parent: the child then only calls into it.
  if (std::string why; !likwid_library_usable(why)) {
    p.freq_why = p.power_why = why;
    return p;
  }
  std::string why;
  const std::optional<std::string> answer = detail::run_forked_probe(child_probe, timeout_s, why);
  p.freq_why = p.power_why = answer ? "likwid: the probe did not report on this module" : "likwid: " + why;
  const std::string text = answer.value_or("");
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("freq ok ", 0) == 0) {
      p.available_hz = parse_likwid_frequencies(line.substr(8));
      p.freq_ok = !p.available_hz.empty();
      p.freq_why = p.freq_ok ? "" : "likwid lists no available frequencies";
    } else if (line.rfind("freq no ", 0) == 0) {
      p.freq_why = "likwid: " + line.substr(8);
    } else if (line == "power ok") {
      p.power_ok = true;
      p.power_why.clear();
    } else if (line.rfind("power no ", 0) == 0) {
      p.power_why = "likwid: " + line.substr(9);
    }
  }
  return p;
#endif
}

}  // namespace rubato
