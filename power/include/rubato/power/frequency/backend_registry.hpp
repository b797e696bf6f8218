// The one place frequency back-ends are registered by name (the plug-in table
// of plugin_table.hpp): `RUBATO_BACKEND=auto` walks this table in order and
// takes the first usable back-end; `rubato info` lists it.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "rubato/core/config/settings.hpp"
#include "rubato/power/frequency/frequency_control.hpp"
#include "rubato/power/machine/profile.hpp"
#include "rubato/power/machine/topology.hpp"
#include "rubato/power/plugin_table.hpp"

namespace rubato {

class OperatingPoint;

struct BackendContext {
  const Settings& settings;
  const Topology& topology;
  const MachineProfile* profile = nullptr;  // may be null (no profile found)
  double machine_max_hz = 0;                // fastest frequency of the machine (hardware or profile)
  // min-energy's operating point (rubato/power/session/operating_point.hpp),
  // which the emulator follows; null where min-energy does not move the uncore.
  const OperatingPoint* operating_point = nullptr;
  // RUBATO_PLANT's machine (the emulator's law; null: `profile`'s).
  const MachineProfile* plant_profile = nullptr;
};

// in_auto: considered by RUBATO_BACKEND=auto.
using BackendEntry = PluginEntry<std::unique_ptr<FrequencyControl>(const BackendContext&)>;

// In auto-preference order: sysfs, likwid; then emulated and dry-run, which
// auto never picks (docs/design.md "Platform": auto never emulates).
std::span<const BackendEntry> frequency_backends();
const BackendEntry* find_frequency_backend(std::string_view name);

struct BackendChoice {
  std::unique_ptr<FrequencyControl> control;  // never null
  std::string note;                           // what was picked and why better ones were not usable
  bool real = false;                          // a back-end that changes real frequencies (sysfs, likwid)
  std::string why_no_real;                    // when the choice fell back to dry-run: why each back-end was not usable
};

// Honours ctx.settings.backend ("auto" or a name). auto takes the first usable
// real back-end; when none is (or a named one is not usable) the choice is
// dry-run, never the emulator, and the note says why.
BackendChoice choose_frequency_control(const BackendContext& ctx);

// The one line that says, after a fall back to dry-run, why no real control
// is possible and how to get it.
std::string no_real_control_line(const BackendChoice& choice);

}  // namespace rubato
