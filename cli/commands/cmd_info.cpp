// `rubato info [--json]`: what this machine allows — cores, clock domains,
// caches, each back-end usable or not and why, the profile that applies.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands/args.hpp"
#include "commands/commands.hpp"
#include "rubato/core/tempo/tempo_ladder.hpp"
#include "rubato/power/machine/machine_info.hpp"
#include "rubato/power/frequency/sysfs_frequency.hpp"
#include "rubato/power/session/run_identity.hpp"

namespace rubato::cli {

const CommandSpec& info_spec() {
  static const CommandSpec spec{
      "info",
      "what this machine allows: cores, clock domains, back-ends usable or not and why, profiles",
      "",
      "",
      {
          {"json", kOutputFormat, "the same as JSON", "", "", ""},
      },
      "RUBATO_SYSFS_ROOT and RUBATO_PROFILE_DIR apply.",
  };
  return spec;
}

namespace {
struct InfoOptions {
  bool json = false;
};

InfoOptions setup(const std::vector<std::string>& argv) {
  Args a(argv, info_spec());
  if (!a.positionals().empty()) throw UsageError("unexpected argument '" + a.positionals().front() + "'");
  return {a.flag("json")};
}

std::string join(const std::vector<int>& v) {
  std::string out;
  for (int x : v) out += (out.empty() ? "" : ",") + std::to_string(x);
  return out;
}

std::string frequencies(const std::vector<double>& hz) {
  std::string out;
  for (double f : hz) out += (out.empty() ? "" : " ") + format_frequency(f);
  return out;
}

nlohmann::json capability_json(const std::vector<CapabilityStatus>& list) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : list)
    out.push_back({{"name", c.name}, {"summary", c.summary}, {"usable", c.usable}, {"why_not", c.why_not}});
  return out;
}

void add_uncore_json(const MachineInfo& m, nlohmann::json& j) {
  j["uncore_domains"] = nlohmann::json::array();
  for (const auto& u : m.topology.uncore_domains)
    j["uncore_domains"].push_back({{"dir", u.dir},
                                   {"package", u.package},
                                   {"initial_min_hz", u.initial_min_hz},
                                   {"initial_max_hz", u.initial_max_hz},
                                   {"min_hz", u.min_hz},
                                   {"max_hz", u.max_hz},
                                   {"current_hz", u.current_hz}});
  j["uncore_control"] = capability_json({m.uncore}).front();
  j["uncore_platform"] = {
      {"interface", m.uncore_platform.interface},
      {"rubato_can_move", m.uncore_platform.rubato_can_move},
      {"can", m.uncore_platform.can},
      {"cannot", m.uncore_platform.cannot},
      {"cpu",
       {{"vendor", m.cpu.vendor}, {"family", m.cpu.family}, {"model", m.cpu.model}, {"hypervisor", m.cpu.hypervisor}}}};
}

void print_json(const MachineInfo& m) {
  nlohmann::json j;
  j["host"] = m.host;
  j["cpu_model"] = m.cpu_model;
  j["sysfs_root"] = m.topology.sysfs_root;
  j["cpus"] = m.topology.cpus;
  j["clock_domains"] = nlohmann::json::array();
  for (const auto& d : m.topology.clock_domains)
    j["clock_domains"].push_back({{"policy", d.policy_dir},
                                  {"cpus", d.cpus},
                                  {"available_hz", d.available_hz},
                                  {"min_hz", d.min_hz},
                                  {"max_hz", d.max_hz},
                                  {"governor", d.governor},
                                  {"governors", d.governors},
                                  {"driver", d.driver},
                                  {"method", to_string(cpufreq_method_of(d))},
                                  {"base_hz", d.base_hz},
                                  {"energy_performance_preference", d.epp}});
  j["pstate"] = {{"driver", m.topology.pstate_driver}, {"status", m.topology.pstate_status}};
  add_uncore_json(m, j);
  j["caches"] = nlohmann::json::array();
  for (const auto& c : m.topology.caches)
    j["caches"].push_back({{"level", c.level}, {"type", c.type}, {"size_bytes", c.size_bytes}, {"cpus", c.cpus}});
  j["topology_problems"] = m.topology.problems;
  j["frequency_backends"] = capability_json(m.frequency_backends);
  j["backend_choice"] = m.chosen_backend_note;
  j["energy_meters"] = capability_json(m.energy_meters);
  j["profile"] = {{"selected", m.profile},
                  {"error", m.profile_error},
                  {"unreliable", m.profile_unreliable},
                  {"not_measured", m.profile_not_measured},
                  {"available", m.profiles},
                  {"dirs", m.profile_dirs}};
  j["state_dir"] = m.state_dir;
  std::printf("%s\n", j.dump(2).c_str());
}

void print_capabilities(const char* title, const std::vector<CapabilityStatus>& list) {
  std::printf("%s\n", title);
  for (const auto& c : list)
    std::printf("  %-9s %-10s %s%s%s\n", c.name.c_str(), c.usable ? "usable" : "NOT usable", c.summary.c_str(),
                c.usable ? "" : "\n            why: ", c.usable ? "" : c.why_not.c_str());
}

void print_uncore_domains(const Topology& t) {
  if (t.uncore_domains.empty()) std::printf("uncore domains: none (no intel_uncore_frequency)\n");
  else std::printf("uncore domains: %zu\n", t.uncore_domains.size());
  for (const auto& u : t.uncore_domains)
    std::printf("  %-18s package %-3d limits %s..%s of %s..%s%s%s\n", u.name.c_str(), u.package,
                format_frequency(u.min_hz).c_str(), format_frequency(u.max_hz).c_str(),
                format_frequency(u.initial_min_hz).c_str(), format_frequency(u.initial_max_hz).c_str(),
                u.current_hz > 0 ? " now " : "", u.current_hz > 0 ? format_frequency(u.current_hz).c_str() : "");
}

// rubato's own uncore back-end, then what the platform allows beyond it (AMD's data fabric, a missing module).
void print_uncore_control(const MachineInfo& m) {
  print_capabilities("uncore frequency", {m.uncore});
  for (const auto& line : m.uncore_platform.can) std::printf("  can:      %s\n", line.c_str());
  for (const auto& line : m.uncore_platform.cannot) std::printf("  cannot:   %s\n", line.c_str());
}

void print_text(const MachineInfo& m) {
  std::printf("host        %s\ncpu         %s\ncpus        %zu online (%s) under %s\n", m.host.c_str(),
              m.cpu_model.empty() ? "(unknown)" : m.cpu_model.c_str(), m.topology.cpus.size(),
              join(m.topology.cpus).c_str(), m.topology.sysfs_root.c_str());
  if (m.topology.clock_domains.empty()) std::printf("clock domains: none (no cpufreq)\n");
  else std::printf("clock domains: %zu\n", m.topology.clock_domains.size());
  if (!m.topology.pstate_driver.empty())
    std::printf("  %s status %s\n", m.topology.pstate_driver.c_str(), m.topology.pstate_status.c_str());
  for (const auto& d : m.topology.clock_domains) {
    const std::string range = d.available_hz.empty() ? format_frequency(d.min_hz) + ".." + format_frequency(d.max_hz)
                                                     : frequencies(d.available_hz);
    std::printf("  cpus %-8s governor %-12s driver %-14s %s  [%s]%s%s%s%s\n", join(d.cpus).c_str(), d.governor.c_str(),
                d.driver.c_str(), range.c_str(), to_string(cpufreq_method_of(d)), d.base_hz > 0 ? " base " : "",
                d.base_hz > 0 ? format_frequency(d.base_hz).c_str() : "", d.epp.empty() ? "" : " epp ", d.epp.c_str());
  }
  print_uncore_domains(m.topology);
  std::printf("caches\n");
  for (const auto& c : m.topology.caches)
    std::printf("  L%d %-12s %8llu KiB  cpus %s\n", c.level, c.type.c_str(),
                static_cast<unsigned long long>(c.size_bytes / 1024), join(c.cpus).c_str());
  for (const auto& p : m.topology.problems) std::printf("  note: %s\n", p.c_str());
  print_capabilities("frequency back-ends (RUBATO_BACKEND)", m.frequency_backends);
  std::printf("  -> %s\n", m.chosen_backend_note.c_str());
  print_capabilities("energy", m.energy_meters);
  print_uncore_control(m);
  std::printf("profile     %s%s%s\n", m.profile.c_str(), m.profile_error.empty() ? "" : "  (cannot load: ",
              m.profile_error.empty() ? "" : (m.profile_error + ")").c_str());
  // A profile calibrated beside other work says so wherever it is chosen.
  if (!m.profile_unreliable.empty()) std::printf("  UNRELIABLE: %s\n", m.profile_unreliable.c_str());
  // What its calibration could not measure here (the controller lacks it).
  for (const auto& [field, why] : m.profile_not_measured)
    std::printf("  not measured: %s: %s\n", field.c_str(), why.c_str());
  std::printf("profiles    ");
  for (const auto& p : m.profiles) std::printf("%s ", p.c_str());
  std::printf("\nstate dir   %s\n", m.state_dir.empty() ? "(none: set RUBATO_STATE_DIR)" : m.state_dir.c_str());
}
}  // namespace

int run_info(const std::vector<std::string>& argv) {
  const InfoOptions o = setup(argv);
  Diagnostics diag;
  const Settings settings = load_settings(read_process_environment(), diag);
  for (const auto& line : diag.lines) std::fprintf(stderr, "%s\n", line.c_str());
  const MachineInfo m = gather_machine_info(settings);
  if (o.json) print_json(m);
  else print_text(m);
  return 0;
}

}  // namespace rubato::cli
