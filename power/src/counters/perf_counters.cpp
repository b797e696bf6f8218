// The perf source: perf_event_open(2) per thread, counting in user space only
// (exclude_kernel: allowed at perf_event_paranoid 2). task-clock is a software
// event and works anywhere (VMs included); instructions, cycles and last-level
// cache misses need a PMU the kernel exposes. The chip's memory accesses need
// the memory controller's uncore events (CPU-wide, root); instead they are the
// tracked threads' LLC read misses added up, which ignores other programs.
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "counters/counter_source_makers.hpp"
#include "counters/thread_counter_table.hpp"

namespace rubato::detail {
namespace {

using counters::Metric;

struct PerfEvent {
  Metric metric;
  std::uint32_t type;
  std::uint64_t config;
  const char* what;
};

constexpr std::uint64_t kLlReadMiss =
    PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_READ << 8) | (PERF_COUNT_HW_CACHE_RESULT_MISS << 16);

const PerfEvent kEvents[] = {
    {Metric::busy_s, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "software task-clock"},
    {Metric::cycles, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "hardware cpu-cycles"},
    {Metric::instructions, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "hardware instructions"},
    {Metric::llc_misses, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "hardware cache-misses"},
    {Metric::mem_reads, PERF_TYPE_HW_CACHE, kLlReadMiss, "hw-cache LL read misses"},
};

int open_event(const PerfEvent& e, int tid) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = e.type;
  attr.config = e.config;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

std::optional<double> read_event(int fd, Metric m) {
  std::uint64_t v = 0;
  if (read(fd, &v, sizeof v) != static_cast<ssize_t>(sizeof v)) return std::nullopt;
  return m == Metric::busy_s ? static_cast<double>(v) * 1e-9 : static_cast<double>(v);  // task-clock counts ns
}

class PerfThreadReader final : public ThreadReader {
 public:
  explicit PerfThreadReader(std::vector<std::pair<Metric, int>> fds) : fds_(std::move(fds)) {}
  ~PerfThreadReader() override {
    for (auto& [m, fd] : fds_) close(fd);
  }
  // A counter of a thread that ended still reads its final value.
  bool read(MetricTotals& totals) override {
    for (auto& [m, fd] : fds_) totals[static_cast<std::size_t>(m)] = read_event(fd, m);
    return true;
  }

 private:
  std::vector<std::pair<Metric, int>> fds_;
};

class PerfCounters final : public PerThreadSource {
 public:
  explicit PerfCounters(const std::vector<Metric>& want)
      : PerThreadSource("perf", [this](int, int tid) { return open_thread(tid); }) {
    // Probe each event on the calling thread: what opens here opens for the targets.
    for (const PerfEvent& e : kEvents) {
      auto& status = availability_[e.metric];
      if (!wants(want, e.metric)) {
        status.note = "perf: not needed by the policies";
        continue;
      }
      const int fd = open_event(e, 0);
      if (fd < 0) {
        status.note = std::string("perf: ") + e.what + ": " + std::strerror(errno) +
                      (errno == ENOENT || errno == EOPNOTSUPP ? " (no PMU exposed: a VM?)" : "");
        continue;
      }
      close(fd);
      status.available = true;
      status.source = "perf";
      status.note = e.what;
      events_.push_back(e);
    }
    estimate_chip_accesses(want);
    mark_unavailable(availability_, "perf: no generic perf event for it (needs CPU-specific raw or uncore events)");
  }

 private:
  std::unique_ptr<ThreadReader> open_thread(int tid) {
    std::vector<std::pair<Metric, int>> fds;
    for (const PerfEvent& e : events_) {
      const int fd = open_event(e, tid);
      if (fd >= 0) fds.emplace_back(e.metric, fd);
    }
    if (fds.empty()) return nullptr;
    return std::make_unique<PerfThreadReader>(std::move(fds));
  }

  std::vector<PerfEvent> events_;
};

}  // namespace

std::unique_ptr<CounterSource> make_perf_counters(const std::vector<Metric>& want) {
  return std::make_unique<PerfCounters>(want);
}

}  // namespace rubato::detail
