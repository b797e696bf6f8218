// The likwid source: likwid perfmon in direct mode (MSR access: root and the
// msr module), never the access daemon, whose absence makes likwid exit() the
// process: whether perfmon works is asked first in a forked child. It measures
// per CPU with likwid's MEM group: the chip's memory read and write volume
// (memory-controller counters, [EFS] Eqs. 18-19) and the fixed counters
// (instructions, unhalted cycles), which go to the targets bound to that CPU
// (shared equally when several are). Per-thread memory reads are not in MEM:
// another source (papi, perf) gives them where the CPU has them.
#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "counters/counter_source_makers.hpp"
#include "os/forked_probe.hpp"

#ifdef RUBATO_HAVE_LIKWID
#include <likwid.h>

#include "likwid/likwid_library.hpp"
#endif

namespace rubato::detail {
namespace {

using counters::Metric;

#ifdef RUBATO_HAVE_LIKWID

constexpr double kCacheLineBytes = 64;  // one memory access moves one line ([EFS] Eq. 17)
constexpr const char* kGroup = "MEM";

// perfmon on every online CPU with the MEM group; empty on success, else why not.
std::string start_perfmon(std::vector<int>& cpus, int& group) {
  if (topology_init() != 0) return "topology_init failed";
  const CpuTopology_t topo = get_cpuTopology();
  cpus.clear();
  for (unsigned i = 0; i < topo->numHWThreads; ++i)
    if (topo->threadPool[i].inCpuSet) cpus.push_back(static_cast<int>(topo->threadPool[i].apicId));
  if (cpus.empty()) return "no CPUs in likwid's topology";
  HPMmode(ACCESSMODE_DIRECT);  // never the daemon: it exit()s without one
  if (perfmon_init(static_cast<int>(cpus.size()), cpus.data()) < 0)
    return "perfmon_init in direct mode failed (needs root and the msr module)";
  group = perfmon_addEventSet(kGroup);
  if (group < 0) return std::string("this CPU has no ") + kGroup + " group";
  if (perfmon_setupCounters(group) < 0 || perfmon_startCounters() < 0) return "cannot start the MEM counters";
  return "";
}

// Asked once per process, in a child: "ok" or the reason.
std::string probe_perfmon() {
  static std::mutex mutex;
  static std::optional<std::string> answer;
  std::lock_guard<std::mutex> lock(mutex);
  if (answer) return *answer;
  std::string why;
  const auto text = run_forked_probe(
      [] {
        std::vector<int> cpus;
        int group = -1;
        const std::string problem = start_perfmon(cpus, group);
        return problem.empty() ? std::string("ok") : problem;
      },
      3.0, why);
  answer = text ? *text : why;
  return *answer;
}

int find_named(int group, int count, char* (*name_of)(int, int), const std::string& prefix) {
  for (int i = 0; i < count; ++i) {
    const char* n = name_of(group, i);
    if (n && std::string(n).rfind(prefix, 0) == 0) return i;
  }
  return -1;
}

class LikwidCounters final : public CounterSource {
 public:
  explicit LikwidCounters(const std::vector<Metric>& want) {
    // Loaded here, in the parent: the forked child then only calls into it.
    if (std::string why; !likwid_library_usable(why)) {
      mark_unavailable(availability_, "likwid: " + why);
      return;
    }
    const std::string probe = probe_perfmon();
    if (probe != "ok") {
      mark_unavailable(availability_, "likwid: " + probe);
      return;
    }
    const std::string problem = start_perfmon(cpus_, group_);
    if (!problem.empty()) {
      mark_unavailable(availability_, "likwid: " + problem);
      return;
    }
    running_ = true;
    const int metrics = perfmon_getNumberOfMetrics(group_), events = perfmon_getNumberOfEvents(group_);
    read_metric_ = find_named(group_, metrics, perfmon_getMetricName, "Memory read data volume");
    write_metric_ = find_named(group_, metrics, perfmon_getMetricName, "Memory write data volume");
    instr_event_ = find_named(group_, events, perfmon_getEventName, "INSTR_RETIRED_ANY");
    cycles_event_ = find_named(group_, events, perfmon_getEventName, "CPU_CLK_UNHALTED_CORE");
    const auto offer = [&](Metric m, bool have, const char* what) {
      if (have && wants(want, m)) availability_[m] = {true, "likwid", what};
    };
    offer(Metric::mem_accesses, read_metric_ >= 0 && write_metric_ >= 0, "MEM group: read + write volume / 64 B");
    offer(Metric::mem_writes, write_metric_ >= 0, "MEM group: write volume / 64 B");
    offer(Metric::instructions, instr_event_ >= 0, "INSTR_RETIRED_ANY of the target's CPU");
    offer(Metric::cycles, cycles_event_ >= 0, "CPU_CLK_UNHALTED_CORE of the target's CPU");
    mark_unavailable(availability_, "likwid: not in the MEM group, or per CPU only for bound targets");
  }
  ~LikwidCounters() override {
    if (!running_) return;
    perfmon_stopCounters();
    perfmon_finalize();
  }
  std::string_view name() const noexcept override { return "likwid"; }
  const counters::MetricAvailability& availability() const noexcept override { return availability_; }
  void track(const CounterTarget& t) override { targets_[t.id] = t.cpu; }
  void untrack(std::uint64_t id) override { targets_.erase(id); }

  counters::CounterSample sample(double elapsed_s) override {
    counters::CounterSample s;
    s.elapsed_s = elapsed_s;
    if (!running_ || perfmon_readCounters() < 0) return s;
    // Memory-controller counts are per socket, on one CPU each: summing every CPU's value counts each once.
    double read_bytes = 0, write_bytes = 0;
    for (std::size_t i = 0; i < cpus_.size(); ++i) {
      const int idx = static_cast<int>(i);
      if (read_metric_ >= 0) read_bytes += std::max(0.0, perfmon_getLastMetric(group_, read_metric_, idx)) * 1e9;
      if (write_metric_ >= 0) write_bytes += std::max(0.0, perfmon_getLastMetric(group_, write_metric_, idx)) * 1e9;
    }
    if (availability_.has(Metric::mem_accesses)) s.chip.mem_accesses = (read_bytes + write_bytes) / kCacheLineBytes;
    if (availability_.has(Metric::mem_writes)) s.chip.mem_writes = write_bytes / kCacheLineBytes;
    std::map<int, int> sharing;  // cpu -> targets bound to it
    for (const auto& [id, cpu] : targets_)
      if (cpu >= 0) ++sharing[cpu];
    for (const auto& [id, cpu] : targets_) {
      const auto at = std::find(cpus_.begin(), cpus_.end(), cpu);
      if (cpu < 0 || at == cpus_.end()) continue;
      const int idx = static_cast<int>(at - cpus_.begin());
      const double share = 1.0 / sharing[cpu];
      counters::ThreadCounts& t = s.thread_or_add(id);
      if (availability_.has(Metric::instructions))
        t.instructions = perfmon_getLastResult(group_, instr_event_, idx) * share;
      if (availability_.has(Metric::cycles)) t.cycles = perfmon_getLastResult(group_, cycles_event_, idx) * share;
    }
    return s;
  }

 private:
  counters::MetricAvailability availability_;
  std::vector<int> cpus_;
  int group_ = -1;
  bool running_ = false;
  int read_metric_ = -1, write_metric_ = -1, instr_event_ = -1, cycles_event_ = -1;
  std::map<std::uint64_t, int> targets_;  // id -> bound cpu
};

#endif  // RUBATO_HAVE_LIKWID

}  // namespace

std::unique_ptr<CounterSource> make_likwid_counters(const std::vector<Metric>& want) {
#ifdef RUBATO_HAVE_LIKWID
  return std::make_unique<LikwidCounters>(want);
#else
  (void)want;
  return nullptr;
#endif
}

}  // namespace rubato::detail
