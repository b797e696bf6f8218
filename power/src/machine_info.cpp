#include "rubato/power/machine_info.hpp"

#include <unistd.h>

#include "rubato/power/backend_registry.hpp"
#include "rubato/power/likwid_power_meter.hpp"
#include "rubato/power/powercap_meter.hpp"
#include "rubato/power/profile.hpp"
#include "rubato/power/state_file.hpp"
#include "rubato/power/uncore_frequency.hpp"

namespace rubato {

MachineInfo gather_machine_info(const Settings& settings) {
  MachineInfo m;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) m.host = host;
  m.cpu_model = read_cpu_model();
  m.topology = read_topology(settings.sysfs_root);
  m.profile_dirs = profile_search_dirs(settings.profile_dir);
  m.profiles = list_profiles(m.profile_dirs);
  ChosenProfile chosen = resolve_profile(settings.profile, m.cpu_model, m.profile_dirs, m.profile_error);
  m.profile = std::move(chosen.name);
  const std::optional<MachineProfile> profile = std::move(chosen.profile);
  m.state_dir = settings.state_dir.empty() ? default_state_dir() : settings.state_dir;

  const std::vector<double> hw = m.topology.available_hz();
  const double max_hz = !hw.empty() ? hw.front() : profile ? profile->frequencies_hz.front() : 0;
  BackendContext ctx{settings, m.topology, profile ? &*profile : nullptr, max_hz};
  for (const auto& b : frequency_backends()) {
    CapabilityStatus s{std::string(b.name), std::string(b.summary), false, ""};
    s.usable = b.make(ctx)->usable(s.why_not);
    m.frequency_backends.push_back(std::move(s));
  }
  const BackendChoice choice = choose_frequency_control(ctx);
  m.chosen_backend_note = choice.note;
  m.real_frequency_control = choice.real;

  CapabilityStatus rapl{"rapl", "powercap sysfs energy_uj (packages + dram)", false, ""};
  rapl.usable = PowercapMeter(settings.sysfs_root).usable(rapl.why_not);
  CapabilityStatus likwid{"likwid", "likwid power_* (direct mode, probed in a child)", false, ""};
  likwid.usable = LikwidPowerMeter().usable(likwid.why_not);
  CapabilityStatus model{"model", "power model of the machine profile", profile.has_value(), m.profile_error};
  m.energy_meters = {rapl, likwid, model};
  m.uncore = {"uncore", "intel_uncore_frequency min/max_freq_khz (RUBATO_UNCORE)", false, ""};
  m.uncore.usable = UncoreFrequency(m.topology, m.state_dir).usable(m.uncore.why_not);
  return m;
}

}  // namespace rubato
