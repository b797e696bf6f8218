// A frequency back-end (docs/design.md "Platform"): a small capability interface in
// the style of GEOPM's IOGroups. It says whether it can work here and why not,
// records machine state before changing it (save) and puts it back (restore),
// and receives the engine's decisions as a TempoActuator. Units are SI (Hz, s).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rubato/core/tempo/tempo_actuator.hpp"
#include "rubato/core/tempo/tempo_ladder.hpp"
#include "rubato/core/base/types.hpp"

namespace rubato {

struct RestoreOutcome {
  std::vector<std::string> restored;  // one line per clock domain put back
  std::vector<std::string> failed;    // one line per clock domain that could not be
  bool ok() const noexcept { return failed.empty(); }
};

// Which CPUs each engine clock domain stands for (index = DomainId).
struct DomainPlan {
  std::vector<std::vector<int>> cpus_of_domain;
  TempoLadder ladder{std::vector<double>{1e9}};
  std::size_t max_workers = 0;
};

class FrequencyControl : public TempoActuator {
 public:
  virtual std::string_view name() const noexcept = 0;
  // Can this back-end act here? When not, `why` says why in one line.
  virtual bool usable(std::string& why) = 0;
  // Discrete frequencies the hardware offers, descending; empty: the back-end
  // has no opinion (the machine profile's frequencies are used).
  virtual std::vector<double> available_hz() const { return {}; }
  // Records the machine state it may change (before any change), then takes
  // control of the plan's domains. false + `why`: nothing was changed.
  virtual bool save(const DomainPlan& plan, std::string& why) = 0;
  // Puts back what save() recorded. Idempotent; a failing domain does not stop the others.
  virtual RestoreOutcome restore() noexcept = 0;
  // True when the chosen frequency really changes how fast code runs here.
  virtual bool changes_speed() const noexcept = 0;
  // Frequency changes carried out for engine domain `d` (after rate limiting).
  virtual std::uint64_t applied_transitions(DomainId d) const noexcept = 0;
  // Busy time the back-end added to worker `w` at tempo `level` (the emulator's burn), s.
  virtual double added_busy_s(WorkerId /*w*/, Level /*level*/) const noexcept { return 0; }
  // What went wrong while running (a write the hardware refused, and how the
  // back-end degraded), one line each for the report's notes.
  virtual std::vector<std::string> run_notes() const { return {}; }
};

}  // namespace rubato
