/* ThreadSanitizer runs of OpenMP programs (tests/RELIABILITY.md,
 * "Sanitizers"). libomp is not built with TSan, so the happens-before edges
 * of its barriers, task queues and locks are invisible and TSan would report
 * races that are none. LLVM's Archer (libarcher.so, shipped with libomp)
 * supplies those edges as an OMPT tool — but libomp starts only one tool, and
 * rubato is one. This shim, preloaded, is the tool libomp finds first in the
 * process: it starts Archer as its own tool and the tool named by
 * OMP_TOOL_LIBRARIES (librubato_ompt.so) as the client, and forwards every
 * callback to both (LLVM's header-only ompt-multiplex.h). Without
 * OMP_TOOL_LIBRARIES it is Archer alone (the reference runs). */
#define CLIENT_TOOL_LIBRARIES_VAR "OMP_TOOL_LIBRARIES"
#include <ompt-multiplex.h>

#ifndef RUBATO_ARCHER_LIBRARY
#define RUBATO_ARCHER_LIBRARY "libarcher.so"
#endif

/* ompt-multiplex.h renames this to the "own tool" start function. */
ompt_start_tool_result_t* ompt_start_tool(unsigned int omp_version, const char* runtime_version) {
  void* archer = dlopen(RUBATO_ARCHER_LIBRARY, RTLD_LAZY | RTLD_LOCAL);
  if (!archer) {
    fprintf(stderr, "tsan_ompt_bridge: cannot load %s: %s\n", RUBATO_ARCHER_LIBRARY, dlerror());
    return NULL;
  }
  ompt_start_tool_result_t* (*start)(unsigned int, const char*) =
      (ompt_start_tool_result_t * (*)(unsigned int, const char*)) dlsym(archer, "ompt_start_tool");
  return start ? start(omp_version, runtime_version) : NULL;
}
