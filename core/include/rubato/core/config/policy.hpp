// Policy selection: one tempo policy (per-event, inside the engine) optionally
// composed with periodic controllers (EFS throttling, affinity placement),
// written "hermes+efs".
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rubato {

enum class TempoPolicy {
  baseline,  // observe only, every worker at the fastest frequency (the papers' control)
  workpath,  // [HERMES] §3.1: thief procrastination + immediacy relay
  workload,  // [HERMES] §3.2: deque-size thresholds
  hermes,    // [HERMES] §3.3 / Fig. 5: both, head of the list never slowed by workload
  fixed,     // every worker at one frequency ([HERMES] Figs. 23-24)
};

struct PolicySpec {
  TempoPolicy tempo = TempoPolicy::baseline;
  double fixed_hz = 0;    // for TempoPolicy::fixed
  bool efs = false;       // [EFS] contention-aware throttling
  bool affinity = false;  // [META] counter-driven placement
  // rubato's own, beyond the papers: slack slows a worker that has waited longer
  // than a dwell to the slowest level until it gets work (COUNTDOWN's idea, for
  // task runtimes); guarded applies the tempo policy's slowing decisions only
  // where the energy model predicts a saving (rubato/core/tempo/cost_guard.hpp).
  bool slack = false;
  bool guarded = false;
  // min-energy (rubato's own, after EAR's min_energy policy): a periodic
  // controller picks the core level of working workers (a ceiling in the
  // engine) and the uncore level that minimise modelled energy within a
  // time-loss bound (rubato/core/min_energy/min_energy_controller.hpp).
  bool min_energy = false;

  bool workpath() const noexcept { return tempo == TempoPolicy::workpath || tempo == TempoPolicy::hermes; }
  bool workload() const noexcept { return tempo == TempoPolicy::workload || tempo == TempoPolicy::hermes; }
  // Whether the engine changes tempo at all (a ladder of more than one level).
  bool changes_tempo() const noexcept { return tempo != TempoPolicy::baseline || slack || min_energy; }
  // Canonical text, parseable by parse_policy: "hermes+efs", "fixed:1.9GHz",
  // "slack" (baseline + slack), "eco" (hermes + guarded + slack + min-energy).
  std::string name() const;
};

// Accepted: baseline | workpath | workload | hermes | fixed:<freq> | slack |
// guarded | min-energy | eco | efs | affinity, joined with '+' (at most one
// tempo policy; eco = hermes+guarded+slack+min-energy). Returns nullopt and
// sets `error`.
std::optional<PolicySpec> parse_policy(std::string_view text, std::string& error);

inline constexpr std::string_view kPolicyAccepted =
    "baseline | workpath | workload | hermes | fixed:<freq> | slack | guarded | min-energy | eco | efs | affinity, "
    "joined with '+' (e.g. hermes+slack; eco = hermes+guarded+slack+min-energy)";

std::string_view to_string(TempoPolicy p) noexcept;

}  // namespace rubato
