// Nested parallel regions, tasks in the inner teams: nested <outer> <inner>.
#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "ground_truth.hpp"

std::atomic<long> total{0};

int main(int argc, char** argv) {
  const int outer = argc > 1 ? std::atoi(argv[1]) : 2;
  const int inner = argc > 2 ? std::atoi(argv[2]) : 2;
  omp_set_max_active_levels(2);
#pragma omp parallel num_threads(outer)
  {
    const int o = omp_get_thread_num();
#pragma omp parallel num_threads(inner)
#pragma omp single
    for (int i = 0; i < 100; ++i) {
      const long slot = ground_truth::before_task();
#pragma omp task firstprivate(slot, i, o)
      {
        ground_truth::task_started(slot);
        total += o * 1000 + i + (ground_truth::work(300) & 0);
      }
      ground_truth::after_task(slot);
    }
  }
  std::printf("total %ld\n", total.load());
  ground_truth::write();
  return 0;
}
