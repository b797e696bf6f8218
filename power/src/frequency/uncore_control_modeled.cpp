#include "rubato/power/frequency/uncore_control_modeled.hpp"

namespace rubato {
namespace {

std::vector<UncoreDomain> modeled_domains(const UncoreLadder& ladder, std::size_t n) {
  std::vector<UncoreDomain> out;
  for (std::size_t d = 0; d < n; ++d) out.push_back({"modeled" + std::to_string(d), -1, ladder});
  return out;
}

}  // namespace

ModeledUncoreControl::ModeledUncoreControl(UncoreLadder ladder, std::size_t domains, double initial_hz,
                                           const Clock* clock, std::uint64_t min_interval_ns)
    : UncoreControl(modeled_domains(ladder, domains), clock, min_interval_ns),
      initial_hz_(initial_hz > 0 ? initial_hz : ladder.fastest_hz()) {
  for (std::size_t d = 0; d < domains; ++d) set_initial_hz(d, initial_hz_);
}

RestoreOutcome ModeledUncoreControl::restore() noexcept {
  restored_ = true;
  for (std::size_t d = 0; d < domains(); ++d) set_initial_hz(d, initial_hz_);
  return {};
}

double ModeledUncoreControl::write(std::size_t /*d*/, double hz, std::string& why) {
  if (!restored_) return hz;
  why = "the modeled uncore was already given back";
  return 0;
}

}  // namespace rubato
