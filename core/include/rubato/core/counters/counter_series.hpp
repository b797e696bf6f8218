// Recorded counter series: the text format the replay counter source reads
// (RUBATO_COUNTERS=replay:<file>), so that the efs and affinity controllers
// can be driven through known counter readings on any machine. Specified in
// docs/efs-affinity.md; in short:
//
//   # comment lines and blank lines are ignored anywhere
//   rubato-counters 1
//   interval,scope,elapsed_s,mem_accesses,mem_writes,mem_reads,busy_s
//   0,chip,0.01,1.4e6,1e5,,
//   0,0,,,,7e5,0.0098
//   0,1,,,,6e5,0.0097
//   1,chip,0.01,2e5,0,,
//   ...
//
// The header names the columns (any order): `interval` (0, 1, 2, ... in file
// order; several rows per interval), `scope` (`chip` or a thread index: worker
// index, or program index in a --mix) and any of the metric names of
// counter_sample.hpp plus `elapsed_s` (chip rows). A metric column that is
// absent is a metric the recording does not have; an empty cell is a figure
// not measured in that row. Values are finite and >= 0.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rubato/core/counters/counter_sample.hpp"

namespace rubato::counters {

inline constexpr std::string_view kSeriesMagic = "rubato-counters";
inline constexpr int kSeriesVersion = 1;

struct CounterSeries {
  std::vector<Metric> columns;           // the metrics the recording has
  std::vector<CounterSample> intervals;  // in order; elapsed_s 0 where the recording gives none
};

// On failure: nullopt and `error` = "<origin>:<line>: <what is wrong>".
std::optional<CounterSeries> parse_counter_series(std::string_view text, std::string_view origin, std::string& error);

}  // namespace rubato::counters
