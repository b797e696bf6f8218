// memsynth, TBB (TbbTasks: parallel_for over the walk's tasks).
#include "../common/tbb_api.hpp"
#include "memsynth.hpp"

std::vector<kernels::memsynth::TaskResult> kernels::memsynth::parallel_run(const ChaseBuffer& buf, const Plan& plan) {
  return run_with<TbbTasks>(buf, plan);
}
