// Measured energy (docs/design.md "Platform"): a meter says whether it can work
// here and why not, starts, and at the end gives joules with their source
// ("measured:rapl", "measured:likwid"). The power model is the fallback.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "rubato/core/io/report.hpp"
#include "rubato/core/config/settings.hpp"
#include "rubato/power/machine/topology.hpp"
#include "rubato/power/plugin_table.hpp"

namespace rubato {

class EnergyMeter {
 public:
  virtual ~EnergyMeter() = default;
  virtual std::string_view name() const noexcept = 0;
  virtual bool usable(std::string& why) = 0;
  virtual bool start(std::string& why) = 0;
  // Joules since start() with the source label; unavailable with why_not on failure.
  virtual EnergyFigure stop() noexcept = 0;
  // Joules since start() while the run goes on (min-energy's closed loop
  // reads it every control interval, on the controller thread); nullopt
  // where this meter cannot be read before stop() or a reading failed.
  virtual std::optional<double> read_j() noexcept { return std::nullopt; }
};

// The meters, in preference order: rapl (powercap), likwid (plugin_table.hpp).
using EnergyMeterEntry = PluginEntry<std::unique_ptr<EnergyMeter>(const Settings&)>;
std::span<const EnergyMeterEntry> energy_meters();

struct EnergyChoice {
  std::unique_ptr<EnergyMeter> meter;  // null: use the power model
  std::string note;                    // which meter, or why none is usable
};

// The first usable meter of energy_meters(); none usable: the model, and the
// note says why each meter was not usable.
EnergyChoice choose_energy_meter(const Settings& settings, const Topology& topology);

}  // namespace rubato
