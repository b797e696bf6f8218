#include "rubato/sim/machine.hpp"

#include <stdexcept>
#include <string>

namespace rubato::sim {

std::optional<Placement> parse_placement(std::string_view text) {
  if (text == "spread") return Placement::spread;
  if (text == "compact") return Placement::compact;
  return std::nullopt;
}

const char* to_string(Placement p) noexcept { return p == Placement::spread ? "spread" : "compact"; }

std::vector<int> place_workers(const MachineProfile& profile, std::size_t workers, Placement placement) {
  const int cores = profile.cores;
  const int per_domain = profile.cores_per_domain > 0 ? profile.cores_per_domain : 1;
  if (workers == 0) throw std::invalid_argument("at least one worker is needed");
  if (workers > static_cast<std::size_t>(cores))
    throw std::invalid_argument("profile '" + profile.name + "' has " + std::to_string(cores) + " cores, fewer than " +
                                std::to_string(workers) +
                                " workers (oversubscription is not simulated; --cores N scales the profile)");
  std::vector<int> core_of;
  core_of.reserve(workers);
  if (placement == Placement::compact) {
    for (std::size_t w = 0; w < workers; ++w) core_of.push_back(static_cast<int>(w));
    return core_of;
  }
  const int domains = (cores + per_domain - 1) / per_domain;
  for (int slot = 0; slot < per_domain && core_of.size() < workers; ++slot)
    for (int d = 0; d < domains && core_of.size() < workers; ++d)
      if (d * per_domain + slot < cores) core_of.push_back(d * per_domain + slot);
  return core_of;
}

}  // namespace rubato::sim
