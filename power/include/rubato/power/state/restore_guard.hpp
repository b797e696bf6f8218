// Save and restore, step 3 of 4 (runs cpufreq_restore's plan; step 4,
// restore_saved_state, is for a process that could not).
//
// Restores machine state when the process ends without the session finishing:
// at exit() and at the signals that end a process (SIGTERM, SIGINT, SIGHUP,
// SIGQUIT; SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGXCPU where the program left
// them at their default action; the crashes SIGABRT, SIGSEGV, SIGBUS, SIGFPE,
// SIGILL), and at those that are not crashes first lets the session write its
// report (arm_signal_report). Then it chains to the program's own handler (or
// the default action), so the program behaves as it would without rubato. A
// signal the program ignores is left alone. What each signal gets and why:
// tests/RELIABILITY.md, "How a run ends".
//
// Process-wide by nature (signal dispositions and atexit are): a small fixed
// table of armed plans, touched by the handler with atomics only.
#pragma once

#include "rubato/power/state/cpufreq_restore.hpp"

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

// The report at a termination signal (a stopped run still reports): `fn(context, sig)` runs on
// a thread of its own (started here, every signal blocked in it) when the
// first such signal arrives; the handler waits for it (at most 3 s) before
// restoring and chaining. Nothing in the handler itself allocates, formats or
// locks. One at a time per process; false: not armed (another is, or no
// thread / pipe could be made), the report then is written at exit only.
using SignalReportFn = void (*)(void* context, int sig) noexcept;
bool arm_signal_report(SignalReportFn fn, void* context) noexcept;
// Stops the thread (joins it; from `fn` itself: lets it end on its own). Call
// without holding anything `fn` waits for.
void disarm_signal_report() noexcept;
// "SIGTERM" for a signal handled here, nullptr otherwise.
const char* signal_name(int sig) noexcept;
// Whether rubato's handler for `sig`, once the report is written, hands it to
// the default action (the program had none of its own when the handlers were
// installed): the process then dies of `sig`. false when the program's own
// handler runs next (it decides how the process ends) or `sig` is not handled here.
bool signal_ends_by_default_action(int sig) noexcept;

}  // namespace rubato
