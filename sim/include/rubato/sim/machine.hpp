// Where simulated workers run on a profile's cores and clock domains.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "rubato/core/base/types.hpp"
#include "rubato/power/machine/profile.hpp"

namespace rubato::sim {

enum class Placement {
  spread,   // one worker per clock domain first ([HERMES] §4.1: no two workers shared a domain)
  compact,  // worker i on core i (domains shared as soon as cores_per_domain > 1)
};

std::optional<Placement> parse_placement(std::string_view text);
const char* to_string(Placement p) noexcept;

// The core hosting each worker. Throws std::invalid_argument when the profile
// has fewer cores than workers (oversubscription is not modelled).
std::vector<int> place_workers(const MachineProfile& profile, std::size_t workers, Placement placement);

inline DomainId domain_of_core(const MachineProfile& profile, int core) noexcept {
  return static_cast<DomainId>(core / (profile.cores_per_domain > 0 ? profile.cores_per_domain : 1));
}

}  // namespace rubato::sim
