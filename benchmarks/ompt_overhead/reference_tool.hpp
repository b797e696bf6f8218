// What the reference tools (null_tool.cpp, floor_tool.cpp) share: they
// register the callbacks librubato_ompt.so registers, each with its own
// bodies, so that what libomp pays for calling a tool is the same in every
// configuration run_overhead.sh compares and only the bodies differ.
#pragma once

#include <omp-tools.h>

namespace rubato::bench {

// `Tool` has the callbacks as static member functions of the OMPT signatures.
template <class Tool>
int register_callbacks(ompt_function_lookup_t lookup) {
  auto set = reinterpret_cast<ompt_set_callback_t>(lookup("ompt_set_callback"));
  if (!set) return 0;
  set(ompt_callback_thread_begin, reinterpret_cast<ompt_callback_t>(&Tool::thread_begin));
  set(ompt_callback_thread_end, reinterpret_cast<ompt_callback_t>(&Tool::thread_end));
  set(ompt_callback_implicit_task, reinterpret_cast<ompt_callback_t>(&Tool::implicit_task));
  set(ompt_callback_task_create, reinterpret_cast<ompt_callback_t>(&Tool::task_create));
  set(ompt_callback_task_schedule, reinterpret_cast<ompt_callback_t>(&Tool::task_schedule));
  set(ompt_callback_sync_region_wait, reinterpret_cast<ompt_callback_t>(&Tool::sync_region_wait));
  return 1;
}

}  // namespace rubato::bench
