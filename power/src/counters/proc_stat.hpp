// CPU time from /proc: the one /proc/stat parser (proc_counters.cpp), used by
// `rubato calibrate` to see what else kept the measured CPUs busy.
#pragma once

#include <vector>

namespace rubato {

// Busy seconds of `cpus` since boot, from /proc/stat (user nice system irq softirq steal).
double proc_stat_busy_s(const std::vector<int>& cpus);

}  // namespace rubato
