// CPU time from /proc: the one /proc/stat parser (proc_counters.cpp), used by
// `rubato calibrate` to see what else kept the measured CPUs busy.
#pragma once

#include <string>
#include <vector>

namespace rubato {

// Busy seconds of `cpus` since boot, from /proc/stat (user nice system irq softirq steal),
// or from a file in its format at `path` (a fake machine's). `cpus` empty: every
// CPU, from the first line (one rounding to clock ticks, not one per CPU).
double proc_stat_busy_s(const std::vector<int>& cpus, const std::string& path = "/proc/stat");

}  // namespace rubato
