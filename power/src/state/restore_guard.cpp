#include "rubato/power/state/restore_guard.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>

namespace rubato {
namespace {

// The signals handled, and what each gets (tests/RELIABILITY.md, "How a run
// ends"):
// - stop requests (someone asks the program to end: `timeout`, a batch
//   scheduler, Ctrl-C, a closed terminal, Ctrl-\): the report, then the
//   restore, then the program's own handler or the default action. Handled
//   unless the program ignores them.
// - fatal by default but often the program's own (a status signal, a timer,
//   a closed pipe, a CPU-time limit): the same, but only when the program left
//   the default action (death) in place; a program that handles them keeps
//   them to itself.
// - crashes: the restore only (the process state cannot be trusted: no report).
enum class Kind { stop, fatal_by_default, crash };
struct Handled {
  int sig;
  Kind kind;
  const char* name;
};
constexpr Handled kSignals[] = {
    {SIGTERM, Kind::stop, "SIGTERM"},
    {SIGINT, Kind::stop, "SIGINT"},
    {SIGHUP, Kind::stop, "SIGHUP"},
    {SIGQUIT, Kind::stop, "SIGQUIT"},
    {SIGUSR1, Kind::fatal_by_default, "SIGUSR1"},
    {SIGUSR2, Kind::fatal_by_default, "SIGUSR2"},
    {SIGALRM, Kind::fatal_by_default, "SIGALRM"},
    {SIGPIPE, Kind::fatal_by_default, "SIGPIPE"},
    {SIGXCPU, Kind::fatal_by_default, "SIGXCPU"},
    {SIGABRT, Kind::crash, "SIGABRT"},
    {SIGSEGV, Kind::crash, "SIGSEGV"},
    {SIGBUS, Kind::crash, "SIGBUS"},
    {SIGFPE, Kind::crash, "SIGFPE"},
    {SIGILL, Kind::crash, "SIGILL"},
};
constexpr int kSlots = 16;
// How long a signal handler waits for the report (bounded: a thread that was
// interrupted while holding a lock the report needs, malloc's for one, would
// otherwise hang the program's end).
constexpr int kReportWaitMs = 3000;

std::atomic<CpufreqRestorePlan*> g_plans[kSlots];
struct sigaction g_previous[std::size(kSignals)];
std::atomic<bool> g_handled[std::size(kSignals)];  // rubato's handler installed (g_previous set)
std::once_flag g_install_once;
// A forked child inherits the handlers and the atexit hook, but the machine
// state belongs to the process that changed it.
pid_t g_owner = 0;

// ---- the report at a termination signal --------------------------------------
// The handler cannot write a report (that allocates, formats, takes locks:
// nothing of it is async-signal-safe), so a thread of its own does, woken by
// the handler's write() on a pipe. The handler then waits, with poll() on a
// second pipe, until the report is written (or kReportWaitMs passed), restores
// the machine and lets the program's handler or the default action run.
// write, read, poll, clock_gettime, sigaction and raise are all
// async-signal-safe (POSIX.1-2008 2.4.3); the rest are lock-free atomics.
// The reporting thread runs ordinary code concurrently with the program's
// threads, as the report at exit does (the engine's figures are atomics); the
// one interrupted thread may hold a lock the report needs, which the bounded
// wait covers (the program then ends without a report, as before).
// Termination signals are blocked in that thread, so that no handler runs on
// it and waits for itself.
int g_wake[2] = {-1, -1};  // handler -> reporter: one byte, the signal number (0: disarmed)
int g_done[2] = {-1, -1};  // reporter -> handlers: one byte once the report is written (never read)
std::atomic<bool> g_report_armed{false};
std::atomic<bool> g_report_claimed{false};  // the first signal claims the report; later ones wait for it
std::mutex g_report_mutex;                  // arm / disarm
// Never destroyed: a session that is never finished must not leave a joinable
// std::thread to a static destructor (std::terminate at the program's exit).
std::thread* g_reporter = nullptr;
SignalReportFn g_report_fn = nullptr;
void* g_report_context = nullptr;

void restore_all() noexcept {
  if (getpid() != g_owner) return;
  for (auto& slot : g_plans)
    if (CpufreqRestorePlan* p = slot.exchange(nullptr, std::memory_order_acq_rel)) p->restore_now();
}

void on_exit_hook() { restore_all(); }

std::int64_t monotonic_ms() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

void write_all(int fd, const char* text) noexcept {
  std::size_t left = std::strlen(text);  // async-signal-safe (POSIX.1-2008 TC2 and glibc)
  while (left > 0) {
    const ssize_t n = write(fd, text, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    text += n;
    left -= static_cast<std::size_t>(n);
  }
}

// In the handler: wake the reporter (the first signal only) and wait for its report.
void report_from_handler(int sig) noexcept {
  if (getpid() != g_owner || !g_report_armed.load(std::memory_order_acquire)) return;
  if (!g_report_claimed.exchange(true, std::memory_order_acq_rel)) {
    const char byte = static_cast<char>(sig);
    ssize_t n;
    do n = write(g_wake[1], &byte, 1);
    while (n < 0 && errno == EINTR);
    if (n != 1) return;
  }
  const std::int64_t deadline = monotonic_ms() + kReportWaitMs;
  for (;;) {
    const std::int64_t left = deadline - monotonic_ms();
    if (left <= 0) {
      write_all(STDERR_FILENO, "rubato: the report could not be written in time at the signal; none is written\n");
      return;
    }
    pollfd p{g_done[0], POLLIN, 0};
    const int r = poll(&p, 1, static_cast<int>(left));
    if (r > 0) return;
    if (r < 0 && errno != EINTR) return;
  }
}

void on_signal(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    if (kSignals[i].sig != sig) continue;
    if (kSignals[i].kind == Kind::crash) {
      if (getpid() == g_owner && g_report_armed.load(std::memory_order_acquire)) {
        // Pre-formatted: nothing here formats or allocates.
        write_all(STDERR_FILENO, "rubato: the program crashed (");
        write_all(STDERR_FILENO, kSignals[i].name);
        write_all(STDERR_FILENO,
                  "): no report is written (the process state cannot be trusted); machine state restored\n");
      }
    } else {
      report_from_handler(sig);
    }
    restore_all();
    errno = saved_errno;
    const struct sigaction& prev = g_previous[i];
    if ((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction) {
      prev.sa_sigaction(sig, info, context);
    } else if (prev.sa_handler == SIG_DFL) {
      // Default action: reinstate it and re-raise; the signal is blocked while
      // we run, so it is delivered (and acts) as soon as we return.
      struct sigaction dfl {};
      dfl.sa_handler = SIG_DFL;
      sigemptyset(&dfl.sa_mask);
      sigaction(sig, &dfl, nullptr);
      raise(sig);
    } else if (prev.sa_handler != SIG_IGN) {
      prev.sa_handler(sig);
    }
    errno = saved_errno;
    return;
  }
}

void install() noexcept {
  g_owner = getpid();
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    struct sigaction current {};
    if (sigaction(kSignals[i].sig, nullptr, &current) != 0) continue;
    const bool own = (current.sa_flags & SA_SIGINFO) || current.sa_handler != SIG_DFL;
    if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN) continue;  // the program ignores it
    if (kSignals[i].kind == Kind::fatal_by_default && own) continue;                  // the program's own signal
    g_previous[i] = current;
    struct sigaction mine {};
    mine.sa_sigaction = on_signal;
    mine.sa_flags = SA_SIGINFO | SA_RESTART | (current.sa_flags & SA_ONSTACK);
    sigemptyset(&mine.sa_mask);
    if (sigaction(kSignals[i].sig, &mine, nullptr) == 0) g_handled[i].store(true, std::memory_order_release);
  }
  std::atexit(on_exit_hook);
}

bool install_once() noexcept {
  try {
    std::call_once(g_install_once, install);
  } catch (...) {
    return false;
  }
  return true;
}

void reporter_main() {
  for (;;) {
    char byte = 0;
    const ssize_t n = read(g_wake[0], &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n != 1 || byte == 0) return;  // disarmed
    if (g_report_fn) g_report_fn(g_report_context, static_cast<unsigned char>(byte));
    const char done = 1;
    ssize_t w;
    do w = write(g_done[1], &done, 1);
    while (w < 0 && errno == EINTR);
    return;  // one report per process
  }
}

void close_pipes() noexcept {
  for (int* p : {g_wake, g_done})
    for (int i = 0; i < 2; ++i)
      if (p[i] >= 0) {
        close(p[i]);
        p[i] = -1;
      }
}

}  // namespace

bool arm_restore(CpufreqRestorePlan* plan) noexcept {
  if (!install_once()) return false;
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

bool arm_signal_report(SignalReportFn fn, void* context) noexcept {
  if (!fn || !install_once()) return false;
  std::lock_guard<std::mutex> lock(g_report_mutex);
  if (g_report_armed.load(std::memory_order_acquire) || g_reporter) return false;  // one at a time
  if (pipe2(g_wake, O_CLOEXEC) != 0) return false;
  if (pipe2(g_done, O_CLOEXEC) != 0) {
    close_pipes();
    return false;
  }
  g_report_fn = fn;
  g_report_context = context;
  g_report_claimed.store(false, std::memory_order_relaxed);
  // The thread starts with every signal blocked (it inherits the mask).
  sigset_t all, before;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &before);
  try {
    g_reporter = new std::thread(reporter_main);
  } catch (...) {
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    close_pipes();
    return false;
  }
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  g_report_armed.store(true, std::memory_order_release);
  return true;
}

void disarm_signal_report() noexcept {
  std::lock_guard<std::mutex> lock(g_report_mutex);
  if (!g_reporter) return;
  g_report_armed.store(false, std::memory_order_release);
  std::thread* reporter = std::exchange(g_reporter, nullptr);
  if (reporter->get_id() == std::this_thread::get_id()) {
    // The report at a signal finishes the session from the reporting thread
    // itself: it ends on its own; the process is about to end. (Its pipes
    // stay open: a handler may still be polling the "done" one.)
    reporter->detach();
    delete reporter;
    return;
  }
  if (!g_report_claimed.exchange(true, std::memory_order_acq_rel)) {
    const char stop = 0;
    ssize_t n;
    do n = write(g_wake[1], &stop, 1);
    while (n < 0 && errno == EINTR);
  }
  // A report under way (a signal arrived as the session finished) ends soon:
  // it waits for the session's finish, which is this thread's.
  reporter->join();
  delete reporter;
  close_pipes();
}

bool signal_ends_by_default_action(int sig) noexcept {
  for (std::size_t i = 0; i < std::size(kSignals); ++i)
    if (kSignals[i].sig == sig && g_handled[i].load(std::memory_order_acquire)) {
      const struct sigaction& prev = g_previous[i];
      return !((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction) && prev.sa_handler == SIG_DFL;  // as on_signal
    }
  return false;
}

const char* signal_name(int sig) noexcept {
  for (const Handled& h : kSignals)
    if (h.sig == sig) return h.name;
  return nullptr;
}

}  // namespace rubato
