#include "rubato/power/energy_meter.hpp"

#include "rubato/power/likwid_power_meter.hpp"
#include "rubato/power/powercap_meter.hpp"

namespace rubato {

EnergyChoice choose_energy_meter(const Settings& settings, const Topology&) {
  EnergyChoice choice;
  auto rapl = std::make_unique<PowercapMeter>(settings.sysfs_root);
  std::string why;
  if (rapl->usable(why)) {
    choice.meter = std::move(rapl);
    choice.note = "measured by powercap (RAPL)";
    return choice;
  }
  std::string likwid_why;
  auto likwid = std::make_unique<LikwidPowerMeter>();
  if (likwid->usable(likwid_why)) {
    choice.meter = std::move(likwid);
    choice.note = "measured by likwid (rapl not usable: " + why + ")";
    return choice;
  }
  choice.note = "model (rapl not usable: " + why + "; likwid not usable: " + likwid_why + ")";
  return choice;
}

}  // namespace rubato
