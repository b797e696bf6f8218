// likwid's freq_* API as a frequency back-end: each change pins a policy's
// CPUs with freq_setCpuClockMin/Max (min = max = target, ordered so min <= max
// always holds). State is saved and restored exactly like the sysfs back-end
// (the same cpufreq files), so `rubato restore` covers it too. Usable only
// when a forked probe says likwid works (likwid_probe.hpp).
#pragma once

#include "rubato/power/frequency/sysfs_frequency.hpp"

namespace rubato {

class LikwidFrequency final : public SysfsFrequency {
 public:
  LikwidFrequency(Topology topology, double min_dwell_s, std::string state_dir);
  ~LikwidFrequency() override;

  bool usable(std::string& why) override;
  std::vector<double> available_hz() const override { return available_; }

 protected:
  bool take_control(std::size_t p, std::string& why) override;
  bool write_frequency(std::size_t p, long long khz) override;

 private:
  std::vector<double> available_;
  std::vector<long long> pinned_khz_;  // per policy, what we last set
  bool initialised_ = false;
};

}  // namespace rubato
