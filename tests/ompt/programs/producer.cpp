// One thread creates many small tasks that the others steal: producer <tasks> <threads>.
// Run with KMP_ENABLE_TASK_THROTTLING=0/1: with throttling libomp runs a task at
// once when the creator's deque holds 256.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "ground_truth.hpp"

int main(int argc, char** argv) {
  const long tasks = argc > 1 ? std::atol(argv[1]) : 10000;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  std::vector<long> out(static_cast<std::size_t>(tasks));
#pragma omp parallel num_threads(threads)
#pragma omp single
  for (long i = 0; i < tasks; ++i) {
    const long slot = ground_truth::before_task();
#pragma omp task firstprivate(slot, i) shared(out)
    {
      ground_truth::task_started(slot);
      out[static_cast<std::size_t>(i)] = i * i + (ground_truth::work(400) & 0);
    }
    ground_truth::after_task(slot);
  }
  long sum = 0;
  for (long v : out) sum += v;
  std::printf("tasks %ld sum %ld\n", tasks, sum);
  ground_truth::write();
  return 0;
}
