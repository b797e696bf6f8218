// Builds an engine on a manual clock with a recording actuator, for tests.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "rubato/core/base/clock.hpp"
#include "rubato/core/tempo/engine.hpp"

namespace rubato::test {

// Remembers every domain-level request the engine makes.
class RecordingActuator final : public TempoActuator {
 public:
  struct Change {
    DomainId domain;
    Level level;
    double hz;
  };
  void domain_level_changed(DomainId d, Level level, double hz, std::uint64_t) noexcept override {
    changes.push_back({d, level, hz});
  }
  // An emulator stand-in when set (before the engine is built): every segment
  // is followed by as much again of busy work, on this clock.
  bool segment_end(WorkerId, std::uint64_t duration_ns, double, double) noexcept override {
    if (stretch_clock) stretch_clock->advance(duration_ns);
    return stretch_clock != nullptr;
  }
  bool stretches_at(double, double) const noexcept override { return stretch_clock != nullptr; }
  std::vector<Change> changes;
  ManualClock* stretch_clock = nullptr;
};

inline EngineOptions options_for(TempoPolicy tempo, int levels, std::size_t workers = 8) {
  EngineOptions o;
  o.policy.tempo = tempo;
  std::vector<double> f;
  for (int i = 0; i < levels; ++i) f.push_back(2.4e9 - 0.4e9 * i);
  o.ladder = TempoLadder(f);
  o.max_workers = workers;
  return o;
}

// An actuator that stretches only below the fastest level, as the emulator:
// every segment it is handed is followed by as much again of busy work.
class SlowLevelStretcher final : public TempoActuator {
 public:
  explicit SlowLevelStretcher(ManualClock& c) : clock(c) {}
  void domain_level_changed(DomainId, Level, double, std::uint64_t) noexcept override {}
  bool segment_end(WorkerId, std::uint64_t duration_ns, double, double) noexcept override {
    ++calls;
    clock.advance(duration_ns);
    return true;
  }
  bool stretches_at(double hz, double max_hz) const noexcept override { return hz < max_hz; }
  ManualClock& clock;
  int calls = 0;
};

struct EngineFixture {
  explicit EngineFixture(EngineOptions o) : engine(std::move(o), clock, actuator) {}
  ManualClock clock;
  RecordingActuator actuator;
  Engine engine;
};

}  // namespace rubato::test
