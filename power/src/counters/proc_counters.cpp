// The proc source: a thread's CPU time from /proc/<pid>/task/<tid>/schedstat
// (nanoseconds on the CPU, the scheduler's own account) or, where the kernel
// has no schedstat, from stat's utime + stime (clock ticks, 10 ms here).
// CPU time is all /proc has: utilisation-only ([META] §IV.A without cycles).
// Also the one /proc/stat parser (proc_stat.hpp).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "counters/counter_source_makers.hpp"
#include "counters/proc_stat.hpp"
#include "counters/thread_counter_table.hpp"

namespace rubato {

double proc_stat_busy_s(const std::vector<int>& cpus, const std::string& path) {
  std::ifstream in(path);
  std::string line;
  const double tick = static_cast<double>(::sysconf(_SC_CLK_TCK));
  double busy = 0;
  while (std::getline(in, line)) {
    if (line.rfind("cpu", 0) != 0 || line.size() < 4) continue;
    const bool all = line[3] == ' ';  // the first line: every CPU, summed before rounding to ticks
    if (all != cpus.empty() || (!all && !std::isdigit(static_cast<unsigned char>(line[3])))) continue;
    std::istringstream s(line.substr(3));
    int cpu = -1;
    unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    if (!all) s >> cpu;
    s >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
    if (all || std::find(cpus.begin(), cpus.end(), cpu) != cpus.end())
      busy += static_cast<double>(user + nice + system + irq + softirq + steal) / tick;
  }
  return busy;
}

}  // namespace rubato

namespace rubato::detail {
namespace {

std::string task_path(int pid, int tid, const char* file) {
  return "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/" + file;
}

// Reads the whole (small) file at `fd` from its start; false when the thread is gone.
bool read_all(int fd, std::string& out) {
  char buf[1024];
  const ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return false;
  out.assign(buf, static_cast<std::size_t>(n));
  return true;
}

class ProcThreadReader final : public ThreadReader {
 public:
  ProcThreadReader(int fd, bool schedstat) : fd_(fd), schedstat_(schedstat) {}
  ~ProcThreadReader() override { close(fd_); }

  bool read(MetricTotals& totals) override {
    std::string text;
    if (!read_all(fd_, text)) return false;
    double busy_s = 0;
    if (schedstat_) {
      busy_s = std::strtod(text.c_str(), nullptr) * 1e-9;  // first field: ns on the CPU
    } else {
      // After the command (which may hold spaces and parentheses) come fields 3, 4, ...; utime is 14, stime 15.
      const auto close_paren = text.rfind(')');
      if (close_paren == std::string::npos) return false;
      std::istringstream fields(text.substr(close_paren + 1));
      std::string field;
      double utime = 0, stime = 0;
      for (int k = 3; k <= 15 && fields >> field; ++k) {
        if (k == 14) utime = std::strtod(field.c_str(), nullptr);
        if (k == 15) stime = std::strtod(field.c_str(), nullptr);
      }
      static const double tick_s = 1.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
      busy_s = (utime + stime) * tick_s;
    }
    totals[static_cast<std::size_t>(counters::Metric::busy_s)] = busy_s;
    return true;
  }

 private:
  int fd_;
  bool schedstat_;
};

bool have_schedstat() { return access("/proc/self/schedstat", R_OK) == 0; }

class ProcCounters final : public PerThreadSource {
 public:
  explicit ProcCounters(bool schedstat)
      : PerThreadSource("proc", [schedstat](int pid, int tid) -> std::unique_ptr<ThreadReader> {
          const int fd = open(task_path(pid, tid, schedstat ? "schedstat" : "stat").c_str(), O_RDONLY | O_CLOEXEC);
          if (fd < 0) return nullptr;
          return std::make_unique<ProcThreadReader>(fd, schedstat);
        }) {
    auto& busy = availability_[counters::Metric::busy_s];
    busy.available = true;
    busy.source = "proc";
    busy.note =
        schedstat ? "/proc/<pid>/task/<tid>/schedstat, ns" : "/proc/<pid>/task/<tid>/stat utime+stime, clock ticks";
    mark_unavailable(availability_, "proc: /proc has CPU times only");
  }
};

}  // namespace

std::unique_ptr<CounterSource> make_proc_counters() { return std::make_unique<ProcCounters>(have_schedstat()); }

}  // namespace rubato::detail
