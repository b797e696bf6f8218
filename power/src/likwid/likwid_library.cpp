// liblikwid, loaded when first used instead of linked: loading it costs the
// host program tens of milliseconds of relocations at start-up (17 MB, ~60 000
// relocations, plus lua / hwloc / udev), and most runs never use it — a run
// only gets here after likwid_probe's cheap checks pass and its forked child
// asks likwid itself.
//
// The likwid calls elsewhere in power/ stay as written: the functions they
// call are defined here, with likwid.h's own declarations (so the compiler
// checks every signature), and forward to the library. Without the library
// each returns its failure value, which every caller already handles (and
// likwid_library_usable lets the probe say why first).
#include "likwid/likwid_library.hpp"

#include <dlfcn.h>

#include <likwid.h>

#include "os/lazy_library.hpp"

namespace rubato {
namespace {

struct Library {
  void* handle = nullptr;
  std::string why;
};

const Library& library() {
  static const Library lib = [] {
    Library l;
    // The library found at build time, then by soname (a runtime package
    // without the development symlink).
    for (const char* name : {RUBATO_LIKWID_LIBRARY, "liblikwid.so.5"}) {
      l.handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (l.handle) return l;
    }
    const char* err = dlerror();
    l.why = std::string("cannot load liblikwid (") + (err ? err : "unknown error") + ")";
    return l;
  }();
  return lib;
}

void* likwid_handle() { return library().handle; }

}  // namespace

bool likwid_library_usable(std::string& why) {
  const Library& l = library();
  if (!l.handle) why = l.why;
  return l.handle != nullptr;
}

}  // namespace rubato

#define RUBATO_LIKWID_FORWARD(ret, name, params, args, failure) \
  RUBATO_LAZY_FORWARD(rubato::likwid_handle(), ret, name, params, args, failure)

RUBATO_LIKWID_FORWARD(int, topology_init, (void), (), -1)
RUBATO_LIKWID_FORWARD(CpuTopology_t, get_cpuTopology, (void), (), nullptr)
RUBATO_LIKWID_FORWARD(void, HPMmode, (int mode), (mode), )
RUBATO_LIKWID_FORWARD(int, HPMinit, (void), (), -1)
RUBATO_LIKWID_FORWARD(int, HPMaddThread, (int cpu_id), (cpu_id), -1)
RUBATO_LIKWID_FORWARD(int, freq_init, (void), (), -1)
RUBATO_LIKWID_FORWARD(void, freq_finalize, (void), (), )
RUBATO_LIKWID_FORWARD(char*, freq_getAvailFreq, (const int cpu_id), (cpu_id), nullptr)
RUBATO_LIKWID_FORWARD(char*, freq_getGovernor, (const int cpu_id), (cpu_id), nullptr)
RUBATO_LIKWID_FORWARD(uint64_t, freq_setCpuClockMax, (const int cpu_id, const uint64_t freq), (cpu_id, freq), 0)
RUBATO_LIKWID_FORWARD(uint64_t, freq_setCpuClockMin, (const int cpu_id, const uint64_t freq), (cpu_id, freq), 0)
RUBATO_LIKWID_FORWARD(int, power_init, (int cpuId), (cpuId), 0)  // 0: no RAPL
RUBATO_LIKWID_FORWARD(void, power_finalize, (void), (), )
RUBATO_LIKWID_FORWARD(int, power_start, (PowerData_t data, int cpuId, PowerType type), (data, cpuId, type), -1)
RUBATO_LIKWID_FORWARD(int, power_stop, (PowerData_t data, int cpuId, PowerType type), (data, cpuId, type), -1)
RUBATO_LIKWID_FORWARD(double, power_printEnergy, (const PowerData* data), (data), 0.0)
RUBATO_LIKWID_FORWARD(int, perfmon_init, (int nrThreads, const int* threadsToCpu), (nrThreads, threadsToCpu), -1)
RUBATO_LIKWID_FORWARD(void, perfmon_finalize, (void), (), )
RUBATO_LIKWID_FORWARD(int, perfmon_addEventSet, (const char* eventCString), (eventCString), -1)
RUBATO_LIKWID_FORWARD(int, perfmon_setupCounters, (int groupId), (groupId), -1)
RUBATO_LIKWID_FORWARD(int, perfmon_startCounters, (void), (), -1)
RUBATO_LIKWID_FORWARD(int, perfmon_stopCounters, (void), (), -1)
RUBATO_LIKWID_FORWARD(int, perfmon_readCounters, (void), (), -1)
RUBATO_LIKWID_FORWARD(char*, perfmon_getEventName, (int groupId, int eventId), (groupId, eventId), nullptr)
RUBATO_LIKWID_FORWARD(char*, perfmon_getMetricName, (int groupId, int metricId), (groupId, metricId), nullptr)
RUBATO_LIKWID_FORWARD(int, perfmon_getNumberOfEvents, (int groupId), (groupId), 0)
RUBATO_LIKWID_FORWARD(int, perfmon_getNumberOfMetrics, (int groupId), (groupId), 0)
RUBATO_LIKWID_FORWARD(double, perfmon_getLastResult, (int groupId, int eventId, int threadId),
                      (groupId, eventId, threadId), 0.0)
RUBATO_LIKWID_FORWARD(double, perfmon_getLastMetric, (int groupId, int metricId, int threadId),
                      (groupId, metricId, threadId), 0.0)
