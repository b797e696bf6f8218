// The reference for rubato's overhead: an OMPT tool that registers the same
// callbacks as librubato_ompt.so and does nothing in them. What remains is the
// cost libomp pays for calling a tool at all.
#include "reference_tool.hpp"

namespace {

struct NullTool {
  static void thread_begin(ompt_thread_t, ompt_data_t*) {}
  static void thread_end(ompt_data_t*) {}
  static void implicit_task(ompt_scope_endpoint_t, ompt_data_t*, ompt_data_t*, unsigned int, unsigned int, int) {}
  static void task_create(ompt_data_t*, const ompt_frame_t*, ompt_data_t*, int, int, const void*) {}
  static void task_schedule(ompt_data_t*, ompt_task_status_t, ompt_data_t*) {}
  static void sync_region_wait(ompt_sync_region_t, ompt_scope_endpoint_t, ompt_data_t*, ompt_data_t*, const void*) {}
};

int initialize(ompt_function_lookup_t lookup, int, ompt_data_t*) {
  return rubato::bench::register_callbacks<NullTool>(lookup);
}

void finalize(ompt_data_t*) {}

}  // namespace

extern "C" ompt_start_tool_result_t* ompt_start_tool(unsigned int, const char*) {
  static ompt_start_tool_result_t result{&initialize, &finalize, ompt_data_none};
  return &result;
}
