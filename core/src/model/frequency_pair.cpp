#include "rubato/core/model/frequency_pair.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace rubato {
namespace {

// Energies this close are equal: the faster pair wins.
constexpr double kTie = 1e-12;

// The segment's power at (core_level, uncore_level), from the level tables
// directly (exact, no interpolation).
double pair_power_w(const FrequencyModel& model, int active, int waiting, std::size_t core_level,
                    std::size_t uncore_level) noexcept {
  const LevelPowers& p = model.powers();
  const double uncore = p.uncore_hz.empty() ? p.uncore_fixed_w : p.uncore_w[uncore_level];
  return active * p.busy_w[core_level] + waiting * p.idle_w.back() + uncore;
}

bool better(const FrequencyPairEstimate& candidate, const FrequencyPairEstimate& best) noexcept {
  if (candidate.energy_ratio < best.energy_ratio - kTie) return true;
  return candidate.energy_ratio <= best.energy_ratio + kTie && candidate.time_factor < best.time_factor - kTie;
}

}  // namespace

FrequencyPairEstimate estimate_frequency_pair(const WorkSensitivity& sensitivity, const FrequencyModel& model,
                                              int active_workers, int waiting_workers, std::size_t core_level,
                                              std::size_t uncore_level) noexcept {
  const int active = std::max(0, active_workers), waiting = std::max(0, waiting_workers);
  FrequencyPairEstimate e;
  e.core_level = std::min(core_level, model.core_levels() - 1);
  e.uncore_level = model.uncore_levels() == 0 ? 0 : std::min(uncore_level, model.uncore_levels() - 1);
  e.core_hz = model.core_hz(e.core_level);
  e.uncore_hz = model.uncore_hz(e.uncore_level);
  e.time_factor = model.time_factor(sensitivity, e.core_hz, e.uncore_hz);
  e.power_w = pair_power_w(model, active, waiting, e.core_level, e.uncore_level);
  const double fastest_w = pair_power_w(model, active, waiting, 0, 0);
  e.energy_ratio = fastest_w > 0 ? e.time_factor * e.power_w / fastest_w : 1.0;
  return e;
}

FrequencyPairEstimate choose_frequency_pair(const WorkSensitivity& sensitivity, const FrequencyModel& model,
                                            int active_workers, int waiting_workers, double max_time_loss) {
  if (const std::string error = sensitivity_error(sensitivity); !error.empty()) throw std::invalid_argument(error);
  if (!(max_time_loss >= 0) || !std::isfinite(max_time_loss))
    throw std::invalid_argument("max time loss: expected a fraction >= 0 (0.05: 5 % more time at most)");
  FrequencyPairEstimate best = estimate_frequency_pair(sensitivity, model, active_workers, waiting_workers, 0, 0);
  if (active_workers <= 0) return best;
  const std::size_t uncore_levels = std::max<std::size_t>(1, model.uncore_levels());
  for (std::size_t c = 0; c < model.core_levels(); ++c)
    for (std::size_t u = 0; u < uncore_levels; ++u) {
      const FrequencyPairEstimate e =
          estimate_frequency_pair(sensitivity, model, active_workers, waiting_workers, c, u);
      if (e.time_factor <= 1.0 + max_time_loss && better(e, best)) best = e;
    }
  return best;
}

}  // namespace rubato
