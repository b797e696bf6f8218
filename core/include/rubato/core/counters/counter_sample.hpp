// One control interval's counter readings: per thread (a worker, or a whole
// program of a `rubato run --mix`) and chip-wide, as a counter source in
// power/ measured them or a recorded series replays them (counter_series.hpp).
// Every figure is optional: a source fills what this machine lets it count.
// Units: seconds and event counts over the interval (deltas, not totals).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rubato::counters {

enum class Metric : std::uint8_t {
  busy_s,        // thread: CPU time ([META] §IV.A utilisation, when cycles are missing)
  cycles,        // thread: unhalted core cycles ([META] §IV.A)
  instructions,  // thread: retired instructions ([META] §IV.B-C denominators)
  llc_misses,    // thread: last-level cache misses ([META] §IV.B)
  fp_ops,        // thread: floating-point operations ([META] §IV.C)
  mem_reads,     // thread: reads from memory ([EFS] Eq. 19 reads_ci)
  mem_accesses,  // chip: every access from the chip to memory ([EFS] Eq. 18 accesses_p)
  mem_writes,    // chip: writes to memory ([EFS] Eq. 19 writes_p)
};
inline constexpr std::size_t kMetricCount = 8;
inline constexpr std::array<Metric, kMetricCount> kAllMetrics = {
    Metric::busy_s, Metric::cycles,    Metric::instructions, Metric::llc_misses,
    Metric::fp_ops, Metric::mem_reads, Metric::mem_accesses, Metric::mem_writes};

std::string_view to_string(Metric m) noexcept;  // the series column name, e.g. "mem_reads"
std::optional<Metric> metric_named(std::string_view name) noexcept;
bool is_chip_metric(Metric m) noexcept;  // mem_accesses, mem_writes

struct ThreadCounts {
  std::uint64_t id = 0;  // worker index, or program index in a --mix
  std::optional<double> busy_s, cycles, instructions, llc_misses, fp_ops, mem_reads;

  // The field of a thread metric; nullptr for a chip metric.
  std::optional<double>* field(Metric m) noexcept;
  const std::optional<double>* field(Metric m) const noexcept;
};

struct ChipCounts {
  std::optional<double> mem_accesses, mem_writes;

  // The field of a chip metric; nullptr for a thread metric.
  std::optional<double>* field(Metric m) noexcept;
  const std::optional<double>* field(Metric m) const noexcept;
};

struct CounterSample {
  double elapsed_s = 0;  // the interval's length
  ChipCounts chip;
  std::vector<ThreadCounts> threads;

  const ThreadCounts* thread(std::uint64_t id) const noexcept;
  ThreadCounts& thread_or_add(std::uint64_t id);
};

// Whether a source (or the sources together) can give a metric here, and why not.
struct MetricStatus {
  bool available = false;
  std::string source;  // which source gives it ("proc", "papi", "replay", ...)
  std::string note;    // when available: how it is obtained if not directly; otherwise why not
};

class MetricAvailability {
 public:
  MetricStatus& operator[](Metric m) noexcept { return status_[static_cast<std::size_t>(m)]; }
  const MetricStatus& operator[](Metric m) const noexcept { return status_[static_cast<std::size_t>(m)]; }
  bool has(Metric m) const noexcept { return (*this)[m].available; }
  // "busy_s: available (proc)" / "mem_reads: unavailable (why)", one per metric.
  std::vector<std::string> describe() const;

 private:
  std::array<MetricStatus, kMetricCount> status_{};
};

}  // namespace rubato::counters
