// The CSV likwid-perfctr prints with -O (likwid 5: likwid.printOutput): an
// "STRUCT,Info,3" block (CPU name, type, clock), then per group "TABLE,Group N
// Raw|Raw STAT|Metric|Metric STAT,<GROUP>,<rows>" each followed by a header
// row ("Event,Counter,HWThread 0,…" or "Metric,HWThread 0,…") and its rows;
// rows are padded with trailing commas; "-" or "nan" mark missing values.
// `rubato run --likwid GROUP` merges the energy, power, bandwidth and data
// volume metrics into the report's `external` map.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rubato::cli {

struct LikwidTable {
  std::string title;  // "Group 1 Metric", "Region r1,Group 1 Raw STAT"
  std::string group;  // "ENERGY"
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  bool is_metric() const;  // a per-HWThread metric table (not STAT)
};

struct LikwidOutput {
  std::string cpu_name;
  std::string cpu_type;
  std::vector<LikwidTable> tables;
};

// nullopt and `error` ("line N: ...") when the text is not likwid CSV.
std::optional<LikwidOutput> parse_likwid_csv(std::string_view text, std::string& error);

// "Energy DRAM [J]" -> "likwid.energy_dram_j", "Memory bandwidth [MBytes/s]" ->
// "likwid.memory_bandwidth_mbytes_per_s".
std::string likwid_key(std::string_view metric);

// The figures `rubato run` merges: energy and power (likwid's ENERGY group),
// memory bandwidth and data volume (MEM*), summed over the HWThreads as
// likwid's own STAT "Sum" does (socket counters are read on one HWThread per
// socket, the others show 0), and the runtime (the largest). Missing values
// are skipped; a metric with no value at all is left out.
std::map<std::string, double> likwid_figures(const LikwidOutput& out);

}  // namespace rubato::cli
