// memsynth, OpenMP tasks (OmpTasks: task/taskwait halving over the walk's tasks).
#include "../common/omp_tasks.hpp"
#include "memsynth.hpp"

std::vector<kernels::memsynth::TaskResult> kernels::memsynth::parallel_run(const ChaseBuffer& buf, const Plan& plan) {
  return run_with<OmpTasks>(buf, plan);
}
