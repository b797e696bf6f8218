#include "rubato/power/backend_registry.hpp"

#include <array>

#include "rubato/power/dry_run_frequency.hpp"
#include "rubato/power/emulated_frequency.hpp"
#include "rubato/power/likwid_frequency.hpp"
#include "rubato/power/sysfs_frequency.hpp"

namespace rubato {
namespace {

double beta_of(const BackendContext& ctx) {
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
    BackendEntry{"emulated", "DVFS emulator: busy work after each task segment, d*beta*(fmax/f-1)", true,
                 [](const BackendContext& ctx) -> std::unique_ptr<FrequencyControl> {
                   return std::make_unique<EmulatedFrequency>(beta_of(ctx), ctx.machine_max_hz);
                 }},
    BackendEntry{"dry-run", "records decisions, changes nothing", false,
                 [](const BackendContext&) -> std::unique_ptr<FrequencyControl> {
                   return std::make_unique<DryRunFrequency>();
                 }},
};

}  // namespace

std::span<const BackendEntry> frequency_backends() { return kBackends; }

const BackendEntry* find_frequency_backend(std::string_view name) {
  for (const auto& b : kBackends)
    if (b.name == name) return &b;
  return nullptr;
}

BackendChoice choose_frequency_control(const BackendContext& ctx) {
  BackendChoice choice;
  std::string not_usable;
  auto add_reason = [&](std::string_view name, const std::string& why) {
    not_usable += (not_usable.empty() ? "" : "; ") + std::string(name) + " not usable: " + why;
  };
  const std::string& wanted = ctx.settings.backend;
  if (wanted != "auto") {
    if (const BackendEntry* b = find_frequency_backend(wanted)) {
      auto control = b->make(ctx);
      std::string why;
      if (control->usable(why)) {
        choice.control = std::move(control);
        choice.note = "backend " + wanted + " (requested by RUBATO_BACKEND)";
        return choice;
      }
      add_reason(wanted, why);
    }
  } else {
    for (const auto& b : kBackends) {
      if (!b.in_auto) continue;
      auto control = b.make(ctx);
      std::string why;
      if (control->usable(why)) {
        choice.control = std::move(control);
        choice.note = "backend " + std::string(b.name) + " (auto" + (not_usable.empty() ? "" : "; " + not_usable) + ")";
        return choice;
      }
      add_reason(b.name, why);
    }
  }
  // The last resort must always work: the host program runs regardless.
  auto emulated = find_frequency_backend("emulated")->make(ctx);
  std::string why;
  if (emulated->usable(why)) {
    choice.control = std::move(emulated);
    choice.note = "backend emulated (fallback; " + not_usable + ")";
  } else {
    add_reason("emulated", why);
    choice.control = std::make_unique<DryRunFrequency>();
    choice.note = "backend dry-run (fallback; " + not_usable + ")";
  }
  return choice;
}

}  // namespace rubato
