#include "counters/thread_counter_table.hpp"

#include "counters/counter_source_makers.hpp"

#include <dirent.h>

#include <algorithm>
#include <cstdlib>
#include <string>

namespace rubato::detail {

std::vector<int> threads_of_process(int pid) {
  std::vector<int> out;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (const dirent* e = readdir(d)) {
    char* end = nullptr;
    const long tid = std::strtol(e->d_name, &end, 10);
    if (end != e->d_name && *end == '\0' && tid > 0) out.push_back(static_cast<int>(tid));
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

void ThreadCounterTable::open_thread(Target& t, int tid) {
  Thread th;
  th.reader = open_(t.target.pid, tid);
  if (!th.reader) return;
  // The first totals are the baseline: only what happens from now on counts.
  if (!th.reader->read(th.last)) return;
  t.threads.emplace(tid, std::move(th));
}

void ThreadCounterTable::track(const CounterTarget& target) {
  auto [it, fresh] = targets_.try_emplace(target.id);
  Target& t = it->second;
  if (!fresh && t.target.pid == target.pid && t.target.tid == target.tid) {
    t.target.cpu = target.cpu;
    return;
  }
  t.target = target;
  t.threads.clear();
  if (target.tid != 0) open_thread(t, target.tid);
  else
    for (int tid : threads_of_process(target.pid)) open_thread(t, tid);
}

counters::CounterSample ThreadCounterTable::sample(double elapsed_s) {
  counters::CounterSample s;
  s.elapsed_s = elapsed_s;
  for (auto& [id, t] : targets_) {
    std::vector<int> alive;
    if (t.target.tid == 0) {
      alive = threads_of_process(t.target.pid);
      for (int tid : alive)
        if (!t.threads.count(tid)) open_thread(t, tid);
    }
    counters::ThreadCounts& out = s.thread_or_add(id);
    for (auto it = t.threads.begin(); it != t.threads.end();) {
      MetricTotals now{};
      const bool readable = it->second.reader->read(now);
      for (counters::Metric m : counters::kAllMetrics) {
        const auto k = static_cast<std::size_t>(m);
        std::optional<double>* field = out.field(m);
        if (!readable || !field || !now[k]) continue;
        *field = field->value_or(0) + std::max(0.0, *now[k] - it->second.last[k].value_or(0));
      }
      // A thread that ended keeps what it counted up to now; its reader goes.
      const bool ended = !readable || (t.target.tid == 0 && !std::binary_search(alive.begin(), alive.end(), it->first));
      if (ended) {
        it = t.threads.erase(it);
        continue;
      }
      it->second.last = now;
      ++it;
    }
  }
  return s;
}

void PerThreadSource::estimate_chip_accesses(const std::vector<counters::Metric>& want) {
  using counters::Metric;
  if (!availability_.has(Metric::mem_reads) || !wants(want, Metric::mem_accesses)) return;
  availability_[Metric::mem_accesses] = {true, name_,
                                         "estimated: the tracked threads' memory reads added up (no uncore access)"};
  estimate_accesses_ = true;
}

counters::CounterSample PerThreadSource::sample(double elapsed_s) {
  counters::CounterSample s = table_.sample(elapsed_s);
  if (estimate_accesses_) {
    double sum = 0;
    for (const auto& t : s.threads) sum += t.mem_reads.value_or(0);
    s.chip.mem_accesses = sum;
  }
  return s;
}

}  // namespace rubato::detail
