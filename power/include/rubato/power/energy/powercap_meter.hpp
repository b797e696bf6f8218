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
// A zone's energy_uj in J; on failure `why` names the file and, for EACCES,
// the reason (root-only since Linux 5.10).
bool read_zone_energy_j(const PowercapZone& zone, double& joules, std::string& why);

// The one RAPL reader (the meter below and `rubato calibrate` use it): the
// summed energy of a set of zones between readings, each counter's wrap-around
// handled. Not thread-safe: its owner serialises calls.
class ZoneEnergy {
 public:
  explicit ZoneEnergy(std::vector<PowercapZone> zones = {});
  const std::vector<PowercapZone>& zones() const noexcept { return zones_; }
  // Takes the current readings as the start; false + `why` (the first zone
  // that could not be read; it starts from 0).
  bool reset(std::string& why);
  // Joules since the previous reset() or take(). A zone that cannot be read
  // adds nothing and keeps its last reading: false + `why` (the first failure).
  bool take(double& joules, std::string& why);

 private:
  std::vector<PowercapZone> zones_;
  std::vector<double> last_j_;
};

class PowercapMeter final : public EnergyMeter {
 public:
  explicit PowercapMeter(std::string sysfs_root, double poll_interval_s = 5.0);
  ~PowercapMeter() override;

  std::string_view name() const noexcept override { return "rapl"; }
  bool usable(std::string& why) override;
  bool start(std::string& why) override;
  EnergyFigure stop() noexcept override;
  std::optional<double> read_j() noexcept override;

 private:
  void poll();

  std::string root_;
  double poll_interval_s_;
  std::mutex mutex_;
  ZoneEnergy energy_;  // mutex held while reading
  double total_j_ = 0;
  std::string failure_;
  PeriodicThread poller_;
};

}  // namespace rubato
