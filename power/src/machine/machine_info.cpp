#include "rubato/power/machine/machine_info.hpp"

#include <unistd.h>

#include "rubato/power/energy/energy_meter.hpp"
#include "rubato/power/frequency/backend_registry.hpp"
#include "rubato/power/frequency/uncore_frequency.hpp"
#include "rubato/power/machine/profile.hpp"
#include "rubato/power/state/state_file.hpp"

namespace rubato {
namespace {

// Each entry of a plug-in table, made with `context` and asked whether it is usable here.
template <class Maker, class Context>
void add_capabilities(std::span<const PluginEntry<Maker>> table, const Context& context,
                      std::vector<CapabilityStatus>& out) {
  for (const auto& entry : table) {
    CapabilityStatus s{std::string(entry.name), std::string(entry.summary), false, ""};
    s.usable = entry.make(context)->usable(s.why_not);
    out.push_back(std::move(s));
  }
}

}  // namespace

MachineInfo gather_machine_info(const Settings& settings) { return gather_machine_info(settings, {}); }

MachineInfo gather_machine_info(const Settings& settings, const MachineInfoPaths& paths) {
  MachineInfo m;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) m.host = host;
  m.cpu = read_cpu_identity(paths.cpuinfo);
  m.cpu_model = m.cpu.model_name;
  m.topology = read_topology(settings.sysfs_root);
  m.profile_dirs = profile_search_dirs(settings.profile_dir);
  m.profiles = list_profiles(m.profile_dirs);
  ChosenProfile chosen = resolve_profile(settings.profile, m.cpu_model, m.profile_dirs, m.profile_error);
  m.profile = std::move(chosen.name);
  const std::optional<MachineProfile> profile = std::move(chosen.profile);
  if (profile) m.profile_unreliable = profile->unreliable;
  if (profile) m.profile_not_measured = profile->not_measured;
  m.state_dir = settings.state_dir.empty() ? default_state_dir() : settings.state_dir;

  const std::vector<double> hw = m.topology.available_hz();
  const double max_hz = !hw.empty() ? hw.front() : profile ? profile->frequencies_hz.front() : 0;
  BackendContext ctx{settings, m.topology, profile ? &*profile : nullptr, max_hz};
  add_capabilities(frequency_backends(), ctx, m.frequency_backends);
  const BackendChoice choice = choose_frequency_control(ctx);
  m.chosen_backend_note = choice.note;
  m.real_frequency_control = choice.real;

  add_capabilities(energy_meters(), settings, m.energy_meters);
  m.energy_meters.push_back({"model", "power model of the machine profile", profile.has_value(), m.profile_error});
  m.uncore = {"uncore", "intel_uncore_frequency min/max_freq_khz (RUBATO_UNCORE; moved at run time by a policy)", false,
              ""};
  m.uncore.usable = UncoreFrequency(m.topology, m.state_dir).usable(m.uncore.why_not);
  m.uncore_platform = describe_uncore_platform(m.cpu, m.topology, paths.dev_root);
  return m;
}

}  // namespace rubato
