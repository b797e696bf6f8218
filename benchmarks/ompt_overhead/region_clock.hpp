// Times a benchmark's parallel region: wall time, and user + system time of
// every thread of the process (less disturbed than wall time when the machine
// is shared).
#pragma once

#include <omp.h>
#include <sys/resource.h>

inline double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// Starts the runtime (and a tool) outside the timed region: the first parallel
// region creates the threads and runs ompt_start_tool.
inline void warm_up_runtime() {
#pragma omp parallel
  { (void)omp_get_thread_num(); }
}
