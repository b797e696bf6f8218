// libpapi, loaded when first used instead of linked: linking it (and libpfm,
// which it pulls in) cost every host program ~3 ms of loading and
// relocations at start-up, measured on the OMPT tool's trivial run, and only
// runs that read counters through PAPI (RUBATO_COUNTERS=papi or auto with a
// policy that needs counters) use it.
//
// The PAPI calls in papi_counters.cpp stay as written: the functions they call
// are defined here, with papi.h's own declarations (so the compiler checks
// every signature), and forward to the library. Without the library each
// returns a PAPI error (PAPI_library_init fails first, and PapiCounters says
// why), as likwid_library.cpp does for likwid.
#include <dlfcn.h>

#include <initializer_list>

#include <papi.h>

#include "os/lazy_library.hpp"

namespace rubato {
namespace {

void* papi_handle() {
  static void* const handle = [] {
    // The library found at build time, then by soname (a runtime package
    // without the development symlink).
    for (const char* name : {RUBATO_PAPI_LIBRARY, "libpapi.so.7.0"}) {
      if (void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return h;
    }
    return static_cast<void*>(nullptr);
  }();
  return handle;
}

}  // namespace
}  // namespace rubato

#define RUBATO_PAPI_FORWARD(ret, name, params, args, failure) \
  RUBATO_LAZY_FORWARD(rubato::papi_handle(), ret, name, params, args, failure)

RUBATO_PAPI_FORWARD(int, PAPI_is_initialized, (void), (), PAPI_NOT_INITED)
RUBATO_PAPI_FORWARD(int, PAPI_library_init, (int version), (version), PAPI_ENOINIT)
RUBATO_PAPI_FORWARD(char*, PAPI_strerror, (int code), (code),
                    const_cast<char*>(code == PAPI_ENOINIT ? "libpapi cannot be loaded" : "PAPI error"))
RUBATO_PAPI_FORWARD(int, PAPI_create_eventset, (int* event_set), (event_set), PAPI_ENOINIT)
RUBATO_PAPI_FORWARD(int, PAPI_assign_eventset_component, (int event_set, int cidx), (event_set, cidx), PAPI_ENOINIT)
RUBATO_PAPI_FORWARD(int, PAPI_attach, (int event_set, unsigned long tid), (event_set, tid), PAPI_ENOINIT)
RUBATO_PAPI_FORWARD(int, PAPI_add_named_event, (int event_set, const char* event_name), (event_set, event_name),
                    PAPI_ENOINIT)
RUBATO_PAPI_FORWARD(int, PAPI_start, (int event_set), (event_set), PAPI_ENOINIT)
RUBATO_PAPI_FORWARD(int, PAPI_read, (int event_set, long long* values), (event_set, values), PAPI_ENOINIT)
RUBATO_PAPI_FORWARD(int, PAPI_stop, (int event_set, long long* values), (event_set, values), PAPI_ENOINIT)
RUBATO_PAPI_FORWARD(int, PAPI_cleanup_eventset, (int event_set), (event_set), PAPI_ENOINIT)
RUBATO_PAPI_FORWARD(int, PAPI_destroy_eventset, (int* event_set), (event_set), PAPI_ENOINIT)
