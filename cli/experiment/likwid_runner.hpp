// `rubato run --likwid GROUP`: whether likwid-perfctr can measure GROUP here
// (asked in a child: its daemon access mode exit()s after a timeout, and it
// needs MSR or perf_event access a VM rarely gives) and how a trial is wrapped.
#pragma once

#include <string>
#include <vector>

namespace rubato::cli {

struct LikwidProbe {
  bool usable = false;
  std::string why;  // one line: what likwid-perfctr said, when not usable
};

// Runs `<perfctr> -C 0 -g GROUP -O -o <tmp csv> true` with a time limit and
// checks that it produced a table.
LikwidProbe probe_likwid(const std::string& perfctr, const std::string& group);

// "0" for one worker, "0-3" for four: the CPUs the trial's workers run on.
std::string likwid_cpu_list(int workers);

// likwid-perfctr -C <cpus> -g GROUP -O -o <csv> <program args…>
std::vector<std::string> likwid_wrap(const std::string& perfctr, const std::string& group, int workers,
                                     const std::string& csv_path, const std::vector<std::string>& argv);

}  // namespace rubato::cli
