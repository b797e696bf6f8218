#include "rubato/power/frequency/backend_registry.hpp"

#include <array>

#include "rubato/power/frequency/dry_run_frequency.hpp"
#include "rubato/power/emulator/emulated_frequency.hpp"
#include "rubato/power/likwid/likwid_frequency.hpp"
#include "rubato/power/frequency/sysfs_frequency.hpp"

namespace rubato {
namespace {

// The emulator's β: the plant's core share where RUBATO_PLANT gives the
// truth, else the settings' (what the user measured), else the profile's.
double beta_of(const BackendContext& ctx) {
  if (ctx.settings.plant.given) return ctx.settings.plant.core;
  if (ctx.settings.beta >= 0) return ctx.settings.beta;
  return ctx.profile ? ctx.profile->beta : 1.0;
}

const std::array kBackends = {
    BackendEntry{"sysfs", "cpufreq sysfs: userspace governor + scaling_setspeed per policy", true,
                 [](const BackendContext& ctx) -> std::unique_ptr<FrequencyControl> {
                   return std::make_unique<SysfsFrequency>(ctx.topology, ctx.settings.min_dwell_s,
                                                           ctx.settings.state_dir);
                 }},
    BackendEntry{"likwid", "likwid freq_* API (probed in a child process)", true,
                 [](const BackendContext& ctx) -> std::unique_ptr<FrequencyControl> {
                   return std::make_unique<LikwidFrequency>(ctx.topology, ctx.settings.min_dwell_s,
                                                            ctx.settings.state_dir);
                 }},
    // Never in auto: the emulator slows the program on purpose with busy work,
    // which costs time and, on a real machine, energy. It runs when asked for.
    BackendEntry{"emulated",
                 "DVFS emulator: busy work after each task segment, d*(b_c*(fmax/f-1) + b_u*(g(f_uncore)-1)) (only "
                 "when asked for)",
                 false,
                 [](const BackendContext& ctx) -> std::unique_ptr<FrequencyControl> {
                   const EmulatorPlant& plant = ctx.settings.plant;
                   const EmulatedUncore uncore =
                       plant.given ? emulated_plant_uncore(ctx.operating_point, ctx.profile,
                                                           ctx.plant_profile ? ctx.plant_profile : ctx.profile,
                                                           {plant.core, plant.uncore}, plant.uncore_exponent)
                                   : emulated_uncore(ctx.operating_point, ctx.profile);
                   return std::make_unique<EmulatedFrequency>(beta_of(ctx), ctx.machine_max_hz, nullptr, uncore);
                 }},
    BackendEntry{
        "dry-run", "records decisions, changes nothing", false,
        [](const BackendContext&) -> std::unique_ptr<FrequencyControl> { return std::make_unique<DryRunFrequency>(); }},
};

}  // namespace

std::span<const BackendEntry> frequency_backends() { return kBackends; }

const BackendEntry* find_frequency_backend(std::string_view name) { return find_plugin(frequency_backends(), name); }

BackendChoice choose_frequency_control(const BackendContext& ctx) {
  BackendChoice choice;
  std::string not_usable;
  const std::string& wanted = ctx.settings.backend;
  if (wanted != "auto") {
    if (const BackendEntry* b = find_frequency_backend(wanted)) {
      auto control = b->make(ctx);
      std::string why;
      if (control->usable(why)) {
        choice.control = std::move(control);
        choice.note = "backend " + wanted + " (requested by RUBATO_BACKEND)";
        choice.real = b->in_auto;
        return choice;
      }
      add_not_usable(not_usable, wanted, why);
    }
  } else {
    for (const auto& b : kBackends) {
      if (!b.in_auto) continue;
      auto control = b.make(ctx);
      std::string why;
      if (control->usable(why)) {
        choice.control = std::move(control);
        choice.note = "backend " + std::string(b.name) + " (auto" + (not_usable.empty() ? "" : "; " + not_usable) + ")";
        choice.real = true;
        return choice;
      }
      add_not_usable(not_usable, b.name, why);
    }
  }
  // Nothing real (or what was asked for) works: record decisions only. The
  // host program runs regardless, at its own speed: falling back to the
  // emulator would slow it down behind the user's back.
  choice.control = std::make_unique<DryRunFrequency>();
  choice.why_no_real = not_usable;
  choice.note = "backend dry-run (" + std::string(wanted == "auto" ? "auto" : "fallback") + "; " + not_usable + ")";
  return choice;
}

std::string no_real_control_line(const BackendChoice& choice) {
  return "no real frequency control here, decisions are recorded only (dry-run): " + choice.why_no_real +
         ". For real control run as root (or make the cpufreq files writable) on a machine whose cpufreq driver "
         "is loaded (acpi-cpufreq, intel_pstate, amd-pstate), or load the msr module for likwid; "
         "RUBATO_BACKEND=emulated emulates DVFS instead (it slows the program on purpose)";
}

}  // namespace rubato
