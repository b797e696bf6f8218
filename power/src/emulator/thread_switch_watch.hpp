// Whether the calling thread left its core since a moment, without a system
// call. glibc (2.35 and later) registers an rseq area for every thread; the
// kernel clears the area's critical-section pointer (struct rseq::rseq_cs)
// when it preempts the thread or delivers it a signal while the thread is
// outside the section the pointer names (rseq(2)). A watch stores a pointer to
// an empty section — it holds no instruction, so nothing is ever restarted —
// and later checks whether the pointer is still there: gone, the thread was
// switched out (or signalled, or migrated) meanwhile.
//
// The kernels up to 6.18 clear it at every context switch, a sleep in a
// system call included; later ones (the rseq rework of 6.19) only when an
// interrupt preempted the thread in user space. switch_watch_sees_sleeps()
// tells which, by sleeping once.
#pragma once

namespace rubato::emulator_detail {

// Whether glibc registered rseq areas in this process (and this build knows
// the area's layout). Without it every check says "switched".
bool switch_watch_available() noexcept;
// Starts a watch on the calling thread (a no-op without an rseq area).
void arm_switch_watch() noexcept;
// Whether the calling thread may have left its core since its last
// arm_switch_watch(); true when it cannot tell (no area, never armed).
bool switch_watch_tripped() noexcept;
// Whether a voluntary sleep trips a watch here (sleeps about 50 us to find out).
bool switch_watch_sees_sleeps() noexcept;

}  // namespace rubato::emulator_detail
