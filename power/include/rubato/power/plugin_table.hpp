// The one way rubato registers a plug-in: an ordered table of PluginEntry
// (name, one-line summary, whether "auto" considers it, a maker), after
// GEOPM's PluginFactory (docs/design.md "Adding a front-end, a back-end or a
// policy"). Three tables, each walked in order by its "auto" and listed by
// `rubato info`; a plug-in passed over says why ("<name> not usable: <why>"):
//   frequency back-ends  frequency/backend_registry.cpp  RUBATO_BACKEND
//   energy meters        energy/energy_meter.cpp         first usable, else the power model
//   counter sources      counters/counter_set.cpp        RUBATO_COUNTERS
// A new plug-in is one more row in its table.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace rubato {

// `Maker` is the function type that makes one, e.g.
// std::unique_ptr<FrequencyControl>(const BackendContext&).
template <class Maker>
struct PluginEntry {
  std::string_view name;
  std::string_view summary;
  bool in_auto;  // considered by "auto"
  Maker* make;
};

// The entry called `name` in `table`, or nullptr.
template <class Maker>
const PluginEntry<Maker>* find_plugin(std::span<const PluginEntry<Maker>> table, std::string_view name) {
  for (const auto& entry : table)
    if (entry.name == name) return &entry;
  return nullptr;
}

// Appends "<name> not usable: <why>" to a "; "-separated list of reasons.
inline void add_not_usable(std::string& reasons, std::string_view name, std::string_view why) {
  reasons += (reasons.empty() ? "" : "; ") + std::string(name) + " not usable: " + std::string(why);
}

}  // namespace rubato
