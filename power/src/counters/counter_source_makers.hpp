// The concrete counter sources behind make_counter_source (one file each).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rubato/power/counters/counter_source.hpp"

namespace rubato::detail {

std::unique_ptr<CounterSource> make_proc_counters();
std::unique_ptr<CounterSource> make_perf_counters(const std::vector<counters::Metric>& want);
std::unique_ptr<CounterSource> make_papi_counters(const std::vector<counters::Metric>& want);
std::unique_ptr<CounterSource> make_likwid_counters(const std::vector<counters::Metric>& want);
// nullptr and `why` ("<file>:<line>: ...") when the recording cannot be read.
std::unique_ptr<CounterSource> make_replay_counters(const std::string& path, std::string& why);

// `want` empty: every metric.
inline bool wants(const std::vector<counters::Metric>& want, counters::Metric m) {
  if (want.empty()) return true;
  for (counters::Metric w : want)
    if (w == m) return true;
  return false;
}

// Marks every metric of `a` not yet available as unavailable for `why`.
void mark_unavailable(counters::MetricAvailability& a, const std::string& why);

}  // namespace rubato::detail
