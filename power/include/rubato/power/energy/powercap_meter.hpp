// RAPL through the powercap sysfs class: energy_uj per zone (packages, and
// their dram subzones when present; psys is left out because it overlaps the
// packages). Counters wrap at max_energy_range_uj; a background poll every few
// seconds makes sure no more than one wrap happens between two reads.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "rubato/power/energy/energy_meter.hpp"
#include "rubato/power/os/periodic_thread.hpp"

namespace rubato {

struct PowercapZone {
  std::string dir;         // .../powercap/intel-rapl:0
  std::string name;        // package-0, dram, core, uncore, psys
  double max_range_j = 0;  // max_energy_range_uj in J
  bool counted = false;    // part of the total (packages + dram)
};

// The zones under `<sysfs_root>/class/powercap`; `problems` collects unreadable ones.
std::vector<PowercapZone> find_powercap_zones(const std::string& sysfs_root, std::vector<std::string>& problems);
// Energy (J) between two raw readings of a counter that wraps at `max_range_j`.
double wrapped_delta_j(double before_j, double after_j, double max_range_j) noexcept;

class PowercapMeter final : public EnergyMeter {
 public:
  explicit PowercapMeter(std::string sysfs_root, double poll_interval_s = 5.0);
  ~PowercapMeter() override;

  std::string_view name() const noexcept override { return "rapl"; }
  bool usable(std::string& why) override;
  bool start(std::string& why) override;
  EnergyFigure stop() noexcept override;

 private:
  bool read_all(std::vector<double>& joules, std::string& why) const;
  void accumulate(const std::vector<double>& now);  // mutex held
  void poll();

  std::string root_;
  double poll_interval_s_;
  std::vector<PowercapZone> zones_;
  std::mutex mutex_;
  std::vector<double> last_j_;
  double total_j_ = 0;
  std::string failure_;
  PeriodicThread poller_;
};

}  // namespace rubato
