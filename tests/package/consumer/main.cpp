// Uses rubato::core from the installed package: a workpath steal slows the thief.
#include <cstdio>

#include <rubato/core/tempo/engine.hpp>
// The 0.1 path, still installed as a forwarding header for one release (CHANGELOG.md).
#include <rubato/core/engine.hpp>
#include <rubato/core/version.hpp>

int main() {
  rubato::EngineOptions o;
  o.policy.tempo = rubato::TempoPolicy::workpath;
  o.ladder = rubato::TempoLadder({2.4e9, 1.4e9});
  o.max_workers = 2;
  rubato::ManualClock clock;
  rubato::NullActuator act;
  rubato::Engine e(o, clock, act);
  e.push(0);
  e.steal(1, 0);
  std::printf("rubato %s: thief at %.1f GHz\n", rubato::kVersion, e.frequency_hz(1) / 1e9);
  return e.level(1) == 1 ? 0 : 1;
}
