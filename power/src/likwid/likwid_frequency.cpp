#include "rubato/power/likwid/likwid_frequency.hpp"

#include <unistd.h>

#include <cmath>

#include "rubato/power/likwid/likwid_probe.hpp"

#ifdef RUBATO_HAVE_LIKWID
#include <likwid.h>
#endif

namespace rubato {

LikwidFrequency::LikwidFrequency(Topology topology, double min_dwell_s, std::string state_dir)
    : SysfsFrequency(std::move(topology), min_dwell_s, std::move(state_dir), "likwid") {}

LikwidFrequency::~LikwidFrequency() {
  restore();
#ifdef RUBATO_HAVE_LIKWID
  if (initialised_) freq_finalize();
#endif
}

bool LikwidFrequency::usable(std::string& why) {
  // Restoring goes through the cpufreq files, so they must be there and
  // writable; checked first, as likwid's own freq module needs them too and
  // without them there is no need to fork a probe.
  if (topology().clock_domains.empty()) {
    why = "no cpufreq policies under " + topology().sysfs_root + " (likwid's freq module and restoring both need them)";
    return false;
  }
  for (const auto& p : topology().clock_domains)
    for (const char* f : {"scaling_min_freq", "scaling_max_freq"})
      if (::access((p.policy_dir + "/" + f).c_str(), W_OK) != 0) {
        why = p.policy_dir + "/" + f + " is not writable: state could not be restored";
        return false;
      }
  const LikwidProbe probe = probe_likwid();
  if (!probe.freq_ok) {
    why = probe.freq_why;
    return false;
  }
  available_ = probe.available_hz;
  return usable_state(why);
}

bool LikwidFrequency::take_control(std::size_t p, std::string& why) {
#ifdef RUBATO_HAVE_LIKWID
  // The probe ran in a child; here the freq module is already known to work.
  if (!initialised_ && freq_init() != 0) {
    why = "likwid freq_init failed";
    return false;
  }
  initialised_ = true;
  if (pinned_khz_.size() < topology().clock_domains.size()) pinned_khz_.resize(topology().clock_domains.size(), -1);
  return widen_limits(p, why);
#else
  (void)p;
  why = "rubato was built without likwid";
  return false;
#endif
}

bool LikwidFrequency::write_frequency(std::size_t p, long long khz) {
#ifdef RUBATO_HAVE_LIKWID
  const bool raising = pinned_khz_[p] < 0 || khz > pinned_khz_[p];
  bool ok = true;
  for (int cpu : topology().clock_domains[p].cpus) {
    const auto f = static_cast<std::uint64_t>(khz);
    // min <= max after each call: raise max first when going up, lower min first when going down.
    if (raising) ok &= freq_setCpuClockMax(cpu, f) != 0 && freq_setCpuClockMin(cpu, f) != 0;
    else ok &= freq_setCpuClockMin(cpu, f) != 0 && freq_setCpuClockMax(cpu, f) != 0;
  }
  if (ok) pinned_khz_[p] = khz;
  return ok;
#else
  (void)p;
  (void)khz;
  return false;
#endif
}

}  // namespace rubato
