// The reference for rubato's overhead: an OMPT tool that registers the same
// callbacks as librubato_ompt.so and does nothing in them. What remains is the
// cost libomp pays for calling a tool at all.
#include <omp-tools.h>

namespace {

void thread_begin(ompt_thread_t, ompt_data_t*) {}
void thread_end(ompt_data_t*) {}
void implicit_task(ompt_scope_endpoint_t, ompt_data_t*, ompt_data_t*, unsigned int, unsigned int, int) {}
void task_create(ompt_data_t*, const ompt_frame_t*, ompt_data_t*, int, int, const void*) {}
void task_schedule(ompt_data_t*, ompt_task_status_t, ompt_data_t*) {}
void sync_region_wait(ompt_sync_region_t, ompt_scope_endpoint_t, ompt_data_t*, ompt_data_t*, const void*) {}

int initialize(ompt_function_lookup_t lookup, int, ompt_data_t*) {
  auto set = reinterpret_cast<ompt_set_callback_t>(lookup("ompt_set_callback"));
  if (!set) return 0;
  set(ompt_callback_thread_begin, reinterpret_cast<ompt_callback_t>(&thread_begin));
  set(ompt_callback_thread_end, reinterpret_cast<ompt_callback_t>(&thread_end));
  set(ompt_callback_implicit_task, reinterpret_cast<ompt_callback_t>(&implicit_task));
  set(ompt_callback_task_create, reinterpret_cast<ompt_callback_t>(&task_create));
  set(ompt_callback_task_schedule, reinterpret_cast<ompt_callback_t>(&task_schedule));
  set(ompt_callback_sync_region_wait, reinterpret_cast<ompt_callback_t>(&sync_region_wait));
  return 1;
}

void finalize(ompt_data_t*) {}

}  // namespace

extern "C" ompt_start_tool_result_t* ompt_start_tool(unsigned int, const char*) {
  static ompt_start_tool_result_t result{&initialize, &finalize, ompt_data_none};
  return &result;
}
