// Restores machine state when the process ends without the session finishing:
// at exit() and at SIGINT, SIGTERM, SIGHUP, SIGABRT and SIGSEGV. Then it chains
// to the program's own handler (or the default action), so the program behaves
// as it would without rubato. A signal the program ignores is left alone.
//
// Process-wide by nature (signal dispositions and atexit are): a small fixed
// table of armed plans, touched by the handler with atomics only.
#pragma once

#include "rubato/power/cpufreq_restore.hpp"

namespace rubato {

// Arms `plan` (which must stay alive until disarmed); installs the handlers
// and the atexit hook the first time. false: the table is full (the plan is
// still restored by the session's normal finish).
bool arm_restore(CpufreqRestorePlan* plan) noexcept;
void disarm_restore(CpufreqRestorePlan* plan) noexcept;

// A back-end's restore at the end of a run: disarms `plan`, restores it now
// and says what failed, each line naming `state_path` where the plan kept
// the state for `rubato restore`.
RestoreOutcome restore_and_disarm(CpufreqRestorePlan& plan, const std::string& state_path) noexcept;

}  // namespace rubato
