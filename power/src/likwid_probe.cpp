#include "rubato/power/likwid_probe.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <sstream>

#ifdef RUBATO_HAVE_LIKWID
#include <likwid.h>
#endif

namespace rubato {
namespace {

#ifdef RUBATO_HAVE_LIKWID
// Runs in the child: one line per module, "freq ok <list>" / "freq no <why>", same for power.
void child_probe(int out) {
  std::string report;
  if (freq_init() != 0) {
    report += "freq no freq_init failed (no cpufreq access for likwid)\n";
  } else {
    char* avail = freq_getAvailFreq(0);
    char* gov = freq_getGovernor(0);
    if (!avail || !gov) report += "freq no cannot read available frequencies / governor of cpu 0\n";
    else report += std::string("freq ok ") + avail + "\n";
    freq_finalize();
  }
  if (topology_init() != 0) {
    report += "power no topology_init failed\n";
  } else {
    HPMmode(ACCESSMODE_DIRECT);  // never the daemon: it exit()s without one
    if (HPMinit() != 0 || HPMaddThread(0) != 0) report += "power no no direct MSR access (needs root and the msr module)\n";
    else if (power_init(0) == 0) report += "power no RAPL not supported by this CPU (per likwid)\n";
    else report += "power ok\n";
  }
  [[maybe_unused]] const ssize_t n = write(out, report.data(), report.size());
}
#endif

}  // namespace

std::vector<double> parse_likwid_frequencies(const std::string& text) {
  std::istringstream in(text);
  std::vector<double> hz;
  for (double v; in >> v;) {
    if (v <= 0) continue;
    hz.push_back(v < 1e3 ? v * 1e9 : v < 1e8 ? v * 1e3 : v);  // GHz, kHz or Hz
  }
  std::sort(hz.begin(), hz.end(), std::greater<>());
  hz.erase(std::unique(hz.begin(), hz.end()), hz.end());
  return hz;
}

LikwidProbe probe_likwid(double timeout_s) {
  // One probe per process: it forks, and its answer does not change.
  static std::mutex mutex;
  static std::optional<LikwidProbe> cached;
  std::lock_guard<std::mutex> lock(mutex);
  if (!cached) cached = probe_likwid_uncached(timeout_s);
  return *cached;
}

LikwidProbe probe_likwid_uncached(double timeout_s) {
  LikwidProbe p;
#ifndef RUBATO_HAVE_LIKWID
  (void)timeout_s;
  p.freq_why = p.power_why = "rubato was built without likwid (RUBATO_WITH_LIKWID=OFF)";
  return p;
#else
  p.built = true;
  int fds[2];
  if (pipe(fds) != 0) {
    p.freq_why = p.power_why = "cannot create a pipe for the probe";
    return p;
  }
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child < 0) {
    close(fds[0]);
    close(fds[1]);
    p.freq_why = p.power_why = "cannot fork the probe";
    return p;
  }
  if (child == 0) {
    close(fds[0]);
    // likwid prints its own errors; they must not reach the host program's streams.
    const int null_fd = open("/dev/null", O_WRONLY);
    if (null_fd >= 0) dup2(null_fd, 1), dup2(null_fd, 2);
    child_probe(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  bool timed_out = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    if (poll(&pfd, 1, static_cast<int>(left.count())) <= 0) continue;
    char buf[512];
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;  // child closed the pipe (exited)
    text.append(buf, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  if (timed_out) kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  const std::string late = timed_out ? "likwid probe timed out after " + std::to_string(timeout_s) +
                                           " s (access daemon missing?)"
                                     : "likwid probe ended without an answer (exit status " +
                                           std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")";
  p.freq_why = p.power_why = late;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("freq ok ", 0) == 0) {
      p.available_hz = parse_likwid_frequencies(line.substr(8));
      p.freq_ok = !p.available_hz.empty();
      p.freq_why = p.freq_ok ? "" : "likwid lists no available frequencies";
    } else if (line.rfind("freq no ", 0) == 0) {
      p.freq_why = "likwid: " + line.substr(8);
    } else if (line == "power ok") {
      p.power_ok = true;
      p.power_why.clear();
    } else if (line.rfind("power no ", 0) == 0) {
      p.power_why = "likwid: " + line.substr(9);
    }
  }
  return p;
#endif
}

}  // namespace rubato
