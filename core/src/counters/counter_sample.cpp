#include "rubato/core/counters/counter_sample.hpp"

#include <algorithm>

namespace rubato::counters {

std::string_view to_string(Metric m) noexcept {
  switch (m) {
    case Metric::busy_s: return "busy_s";
    case Metric::cycles: return "cycles";
    case Metric::instructions: return "instructions";
    case Metric::llc_misses: return "llc_misses";
    case Metric::fp_ops: return "fp_ops";
    case Metric::mem_reads: return "mem_reads";
    case Metric::mem_accesses: return "mem_accesses";
    case Metric::mem_writes: return "mem_writes";
  }
  return "unknown";
}

std::optional<Metric> metric_named(std::string_view name) noexcept {
  for (Metric m : kAllMetrics)
    if (to_string(m) == name) return m;
  return std::nullopt;
}

bool is_chip_metric(Metric m) noexcept { return m == Metric::mem_accesses || m == Metric::mem_writes; }

std::optional<double>* ThreadCounts::field(Metric m) noexcept {
  switch (m) {
    case Metric::busy_s: return &busy_s;
    case Metric::cycles: return &cycles;
    case Metric::instructions: return &instructions;
    case Metric::llc_misses: return &llc_misses;
    case Metric::fp_ops: return &fp_ops;
    case Metric::mem_reads: return &mem_reads;
    default: return nullptr;
  }
}

const std::optional<double>* ThreadCounts::field(Metric m) const noexcept {
  return const_cast<ThreadCounts*>(this)->field(m);
}

std::optional<double>* ChipCounts::field(Metric m) noexcept {
  switch (m) {
    case Metric::mem_accesses: return &mem_accesses;
    case Metric::mem_writes: return &mem_writes;
    default: return nullptr;
  }
}

const std::optional<double>* ChipCounts::field(Metric m) const noexcept {
  return const_cast<ChipCounts*>(this)->field(m);
}

const ThreadCounts* CounterSample::thread(std::uint64_t id) const noexcept {
  const auto it = std::find_if(threads.begin(), threads.end(), [&](const ThreadCounts& t) { return t.id == id; });
  return it == threads.end() ? nullptr : &*it;
}

ThreadCounts& CounterSample::thread_or_add(std::uint64_t id) {
  if (const ThreadCounts* t = thread(id)) return const_cast<ThreadCounts&>(*t);
  threads.push_back(ThreadCounts{});
  threads.back().id = id;
  return threads.back();
}

std::vector<std::string> MetricAvailability::describe() const {
  std::vector<std::string> out;
  for (Metric m : kAllMetrics) {
    const MetricStatus& s = (*this)[m];
    std::string line = std::string(to_string(m)) + ": ";
    if (s.available) {
      line += "available (" + s.source + (s.note.empty() ? "" : "; " + s.note) + ")";
    } else {
      line += "unavailable (" + (s.note.empty() ? std::string("no source counts it") : s.note) + ")";
    }
    out.push_back(std::move(line));
  }
  return out;
}

}  // namespace rubato::counters
