#include "rubato/power/energy/energy_meter.hpp"

#include <array>

#include "rubato/power/energy/powercap_meter.hpp"
#include "rubato/power/likwid/likwid_power_meter.hpp"

namespace rubato {
namespace {

const std::array kMeters = {
    EnergyMeterEntry{"rapl", "powercap sysfs energy_uj (packages + dram)", true,
                     [](const Settings& s) -> std::unique_ptr<EnergyMeter> {
                       return std::make_unique<PowercapMeter>(s.sysfs_root);
                     }},
    EnergyMeterEntry{
        "likwid", "likwid power_* (direct mode, probed in a child)", true,
        [](const Settings&) -> std::unique_ptr<EnergyMeter> { return std::make_unique<LikwidPowerMeter>(); }},
};

// What a run's note calls a meter: "measured by powercap (RAPL)".
std::string measured_by(std::string_view name) { return name == "rapl" ? "powercap (RAPL)" : std::string(name); }

}  // namespace

std::span<const EnergyMeterEntry> energy_meters() { return kMeters; }

EnergyChoice choose_energy_meter(const Settings& settings, const Topology&) {
  EnergyChoice choice;
  std::string not_usable;
  for (const auto& entry : energy_meters()) {
    if (!entry.in_auto) continue;
    auto meter = entry.make(settings);
    std::string why;
    if (meter->usable(why)) {
      choice.meter = std::move(meter);
      choice.note = "measured by " + measured_by(entry.name) + (not_usable.empty() ? "" : " (" + not_usable + ")");
      return choice;
    }
    add_not_usable(not_usable, entry.name, why);
  }
  choice.note = "model (" + not_usable + ")";
  return choice;
}

}  // namespace rubato
