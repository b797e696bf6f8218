// Where the engine's decisions go. Implemented by power/ back-ends (sysfs,
// likwid, emulator, dry-run) and by the simulator; the engine does not know
// which (docs/design.md "Data flow": front-ends translate, back-ends actuate, the
// engine decides).
#pragma once

#include <cstdint>

#include "rubato/core/base/types.hpp"

namespace rubato {

class TempoActuator {
 public:
  virtual ~TempoActuator() = default;

  // A clock domain's effective level changed (the fastest level any of its
  // workers requests). Called on the deciding thread, possibly from several
  // threads for different domains at once: implementations must only record
  // the request (store + return); rate limiting and slow I/O belong elsewhere.
  virtual void domain_level_changed(DomainId domain, Level level, double hz, std::uint64_t now_ns) noexcept = 0;

  // Worker `w` ended a task segment of `duration_ns` (wall time; a segment
  // split by a level change comes as two calls, one per part, back to back)
  // while its domain ran at `hz` (of a fastest `max_hz`). Only called at the levels where
  // stretches_at(hz, max_hz) was true at engine construction: the emulator
  // stretches the segment here. Returns true when it kept the worker busy
  // after the segment's end (the worker's next segment starts later than this
  // one ended).
  virtual bool segment_end(WorkerId /*w*/, std::uint64_t /*duration_ns*/, double /*hz*/, double /*max_hz*/) noexcept {
    return false;
  }
  // Worker `w` opened a busy run (task_begin, or a segment_begin with no run
  // open) on its own thread, while its domain is at a level where
  // stretches_at was true at engine construction (never on a back-end that
  // stretches nothing, nor at a level it does not stretch): the emulator
  // reads the thread's CPU clock here, so that it stretches the CPU time a
  // segment ran, not the wall time it took.
  virtual void run_started(WorkerId /*w*/) noexcept {}
  // Whether segments at `hz` are stretched (the emulator: below the machine's
  // fastest frequency). False everywhere, the default: the engine never calls
  // segment_end, and chains segments without reading the clock.
  virtual bool stretches_at(double /*hz*/, double /*max_hz*/) const noexcept { return false; }
  // A raise that should land as soon as the back-end can (a worker that slack
  // had lowered got work): called on the worker's thread right after
  // domain_level_changed, at most once per wake-up. A rate-limited back-end
  // applies it now rather than at its next poll (and never holds it for the dwell).
  virtual void raise_now(DomainId /*domain*/) noexcept {}
};

// Records nothing; for tests and observe-only runs.
class NullActuator final : public TempoActuator {
 public:
  void domain_level_changed(DomainId, Level, double, std::uint64_t) noexcept override {}
};

}  // namespace rubato
