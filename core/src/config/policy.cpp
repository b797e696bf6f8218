#include "rubato/core/config/policy.hpp"

#include "rubato/core/tempo/tempo_ladder.hpp"

namespace rubato {

std::string_view to_string(TempoPolicy p) noexcept {
  switch (p) {
    case TempoPolicy::baseline: return "baseline";
    case TempoPolicy::workpath: return "workpath";
    case TempoPolicy::workload: return "workload";
    case TempoPolicy::hermes: return "hermes";
    case TempoPolicy::fixed: return "fixed";
  }
  return "?";
}

std::string PolicySpec::name() const {
  std::string out;
  auto add = [&](std::string_view part) {
    if (!out.empty()) out += '+';
    out += part;
  };
  const bool eco = tempo == TempoPolicy::hermes && guarded && slack && min_energy;
  if (eco) {
    out = "eco";
  } else {
    const bool tempo_named = tempo != TempoPolicy::baseline || (!efs && !affinity && !slack && !guarded && !min_energy);
    if (tempo_named)
      out = tempo == TempoPolicy::fixed ? "fixed:" + format_frequency(fixed_hz) : std::string(to_string(tempo));
    if (guarded) add("guarded");
    if (slack) add("slack");
    if (min_energy) add("min-energy");
  }
  if (efs) add("efs");
  if (affinity) add("affinity");
  return out;
}

std::optional<PolicySpec> parse_policy(std::string_view text, std::string& error) {
  PolicySpec spec;
  bool have_tempo = false;
  const std::string whole(text);
  if (text.empty()) {
    error = "empty policy";
    return std::nullopt;
  }
  while (true) {
    const std::size_t plus = text.find('+');
    const std::string_view part = text.substr(0, plus);
    auto set_tempo = [&](TempoPolicy t) {
      if (have_tempo) {
        error = "more than one tempo policy in '" + whole + "'";
        return false;
      }
      have_tempo = true;
      spec.tempo = t;
      return true;
    };
    if (part == "baseline") {
      if (!set_tempo(TempoPolicy::baseline)) return std::nullopt;
    } else if (part == "workpath") {
      if (!set_tempo(TempoPolicy::workpath)) return std::nullopt;
    } else if (part == "workload") {
      if (!set_tempo(TempoPolicy::workload)) return std::nullopt;
    } else if (part == "hermes") {
      if (!set_tempo(TempoPolicy::hermes)) return std::nullopt;
    } else if (part.substr(0, 6) == "fixed:") {
      if (!set_tempo(TempoPolicy::fixed)) return std::nullopt;
      if (!parse_frequency(part.substr(6), spec.fixed_hz, error)) return std::nullopt;
    } else if (part == "eco") {
      if (!set_tempo(TempoPolicy::hermes)) return std::nullopt;
      spec.guarded = spec.slack = spec.min_energy = true;
    } else if (part == "slack") spec.slack = true;
    else if (part == "guarded") spec.guarded = true;
    else if (part == "min-energy") spec.min_energy = true;
    else if (part == "efs") spec.efs = true;
    else if (part == "affinity") spec.affinity = true;
    else {
      error = "unknown policy '" + std::string(part) + "'";
      return std::nullopt;
    }
    if (plus == std::string_view::npos) break;
    text.remove_prefix(plus + 1);
  }
  return spec;
}

}  // namespace rubato
