// Whether likwid's frequency and power modules work here, asked in a forked
// child: likwid's access-daemon mode calls exit() in the calling process after
// a 10 s timeout when the daemon is missing, and the host program must never
// be ended by us. The child is killed if it takes longer than `timeout_s`.
#pragma once

#include <string>
#include <vector>

namespace rubato {

struct LikwidProbe {
  bool built = false;  // rubato was built with likwid
  bool freq_ok = false;
  std::string freq_why;
  std::vector<double> available_hz;  // descending
  bool power_ok = false;
  std::string power_why;
};

// Whether likwid's direct mode (the only one the probe and the back-ends use)
// can open the MSR device: without it likwid's power and perfmon modules cannot
// work, and there is no need to fork a probe to learn that.
bool likwid_msr_access(std::string& why);

// Cached: the first call forks, later calls return the same answer.
LikwidProbe probe_likwid(double timeout_s = 3.0);
LikwidProbe probe_likwid_uncached(double timeout_s);

// Parses likwid's freq_getAvailFreq text ("1.2 1.6 2.4" in GHz, or kHz values) into Hz, descending.
std::vector<double> parse_likwid_frequencies(const std::string& text);

}  // namespace rubato
