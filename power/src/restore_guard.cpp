#include "rubato/power/restore_guard.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

namespace rubato {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGABRT, SIGSEGV};
constexpr int kSlots = 16;

std::atomic<CpufreqRestorePlan*> g_plans[kSlots];
struct sigaction g_previous[std::size(kSignals)];
std::once_flag g_install_once;
// A forked child inherits the handlers and the atexit hook, but the machine
// state belongs to the process that changed it.
pid_t g_owner = 0;

void restore_all() noexcept {
  if (getpid() != g_owner) return;
  for (auto& slot : g_plans)
    if (CpufreqRestorePlan* p = slot.exchange(nullptr, std::memory_order_acq_rel)) p->restore_now();
}

void on_exit_hook() { restore_all(); }

void on_signal(int sig, siginfo_t* info, void* context) {
  restore_all();
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    if (kSignals[i] != sig) continue;
    const struct sigaction& prev = g_previous[i];
    if ((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction) {
      prev.sa_sigaction(sig, info, context);
    } else if (prev.sa_handler == SIG_DFL) {
      // Default action: reinstate it and re-raise; the signal is blocked while
      // we run, so it is delivered (and acts) as soon as we return.
      struct sigaction dfl{};
      dfl.sa_handler = SIG_DFL;
      sigemptyset(&dfl.sa_mask);
      sigaction(sig, &dfl, nullptr);
      raise(sig);
    } else if (prev.sa_handler != SIG_IGN) {
      prev.sa_handler(sig);
    }
    return;
  }
}

void install() noexcept {
  g_owner = getpid();
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    struct sigaction current{};
    if (sigaction(kSignals[i], nullptr, &current) != 0) continue;
    if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN) continue;  // the program ignores it
    g_previous[i] = current;
    struct sigaction mine{};
    mine.sa_sigaction = on_signal;
    mine.sa_flags = SA_SIGINFO | SA_RESTART | (current.sa_flags & SA_ONSTACK);
    sigemptyset(&mine.sa_mask);
    sigaction(kSignals[i], &mine, nullptr);
  }
  std::atexit(on_exit_hook);
}

}  // namespace

bool arm_restore(CpufreqRestorePlan* plan) noexcept {
  try {
    std::call_once(g_install_once, install);
  } catch (...) {
    return false;
  }
  for (auto& slot : g_plans) {
    CpufreqRestorePlan* expected = nullptr;
    if (slot.compare_exchange_strong(expected, plan, std::memory_order_acq_rel)) return true;
  }
  return false;
}

void disarm_restore(CpufreqRestorePlan* plan) noexcept {
  for (auto& slot : g_plans) {
    CpufreqRestorePlan* expected = plan;
    slot.compare_exchange_strong(expected, nullptr, std::memory_order_acq_rel);
  }
}

RestoreOutcome restore_and_disarm(CpufreqRestorePlan& plan, const std::string& state_path) noexcept {
  disarm_restore(&plan);
  plan.restore_now();
  RestoreOutcome outcome;
  try {
    outcome = plan.outcome();
    // The plan kept the state file if something failed: `rubato restore` can retry.
    for (auto& line : outcome.failed) line += "; state kept in " + state_path;
  } catch (...) {
  }
  return outcome;
}

}  // namespace rubato
