// Replays a task trace recorded by a front-end (RUBATO_TRACE, rubato/core/io/trace.hpp,
// docs/trace-format.md) as a simulated program.
//
// Each task becomes a script: its segments' work, cut at the instants it
// created children (spawn) and entered waits (sync), in time order. Work is
// converted from the frequency of the tempo level it ran at to time at the
// trace's fastest level (beta f_level / f_0 + 1 - beta), which the simulator
// takes as time at the profile's fastest frequency. A trace does not record
// the uncore: the recording is taken to have run with the uncore at its
// fastest (the reference), so the uncore-sensitive share b_u only shapes how
// the replay slows when the simulated uncore is lower.
//
// Top level: implicit tasks with work or children, and explicit tasks whose
// parent is the initial task. Those whose executions overlap in time (one
// parallel region's team) form one phase, spawned together and joined;
// phases run one after another. Serial time outside tasks (the initial task)
// is not recorded and not replayed.
//
// Approximations (each counted in `notes` when it occurs): taskgroup and
// barrier waits wait for the direct children, and a task that returns with
// children outstanding counts as done when they are (the simulator's subtree
// rule), so a taskwait waits for grandchildren left running that way;
// undeferred tasks are spawned like deferred ones; worker identities of the
// recording are ignored.
#pragma once

#include <string>
#include <vector>

#include "rubato/core/io/trace.hpp"
#include "rubato/sim/program.hpp"

namespace rubato::sim {

struct TraceProgramInfo {
  std::uint64_t explicit_tasks = 0;  // replayed explicit tasks
  std::uint64_t top_level = 0;       // implicit / orphan tasks replayed as phase members
  std::uint64_t phases = 0;
  std::uint64_t recorded_steals = 0;  // segments that started with a steal in the recording
};

// Every task's work has `sensitivity` (b_c, b_u). Throws std::invalid_argument
// for an invalid one (sensitivity_error).
Program build_trace_program(const Trace& trace, const WorkSensitivity& sensitivity, std::vector<std::string>& notes,
                            TraceProgramInfo* info = nullptr);
// The β model's form: b_c = beta, b_u = 0.
Program build_trace_program(const Trace& trace, double beta, std::vector<std::string>& notes,
                            TraceProgramInfo* info = nullptr);

}  // namespace rubato::sim
