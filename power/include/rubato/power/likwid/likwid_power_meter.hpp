// Package energy through likwid's power_* API in direct mode (only after the
// forked probe said it works). likwid's counters are 32 bits wide, so a poll
// thread closes and reopens the measurement every few seconds: at most one
// wrap per window, which power_printEnergy accounts for.
#pragma once

#include <mutex>
#include <vector>

#include "rubato/power/energy/energy_meter.hpp"
#include "rubato/power/os/periodic_thread.hpp"

namespace rubato {

class LikwidPowerMeter final : public EnergyMeter {
 public:
  explicit LikwidPowerMeter(double window_s = 10.0);
  ~LikwidPowerMeter() override;

  std::string_view name() const noexcept override { return "likwid"; }
  bool usable(std::string& why) override;
  bool start(std::string& why) override;
  EnergyFigure stop() noexcept override;

 private:
  void roll_window(bool restart);  // mutex held

  double window_s_;
  std::vector<int> package_cpus_;  // one CPU per socket
  std::vector<char> data_;         // PowerData per package (opaque here)
  double total_j_ = 0;
  std::mutex mutex_;
  bool running_ = false;
  PeriodicThread poller_;
};

}  // namespace rubato
