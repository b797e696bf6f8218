// Measured energy (DESIGN.md "Platform"): a meter says whether it can work
// here and why not, starts, and at the end gives joules with their source
// ("measured:rapl", "measured:likwid"). The power model is the fallback.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "rubato/core/report.hpp"
#include "rubato/core/settings.hpp"
#include "rubato/power/topology.hpp"

namespace rubato {

class EnergyMeter {
 public:
  virtual ~EnergyMeter() = default;
  virtual std::string_view name() const noexcept = 0;
  virtual bool usable(std::string& why) = 0;
  virtual bool start(std::string& why) = 0;
  // Joules since start() with the source label; unavailable with why_not on failure.
  virtual EnergyFigure stop() noexcept = 0;
};

struct EnergyChoice {
  std::unique_ptr<EnergyMeter> meter;  // null: use the power model
  std::string note;                    // which meter, or why none is usable
};

// powercap (RAPL) first, then likwid power; none usable: the model.
EnergyChoice choose_energy_meter(const Settings& settings, const Topology& topology);

}  // namespace rubato
