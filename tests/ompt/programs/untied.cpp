// Untied tasks that create children, yield and wait, so they can resume on
// another thread: untied <tasks> <threads>.
#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "ground_truth.hpp"

std::atomic<long> total{0};

int main(int argc, char** argv) {
  const int tasks = argc > 1 ? std::atoi(argv[1]) : 200;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
#pragma omp parallel num_threads(threads)
#pragma omp single
  for (int i = 0; i < tasks; ++i) {
    const long slot = ground_truth::before_task();
#pragma omp task untied firstprivate(slot, i)
    {
      ground_truth::task_started(slot);
      total += ground_truth::work(300) & 0;
      for (int j = 0; j < 3; ++j) {
        const long child = ground_truth::before_task();
#pragma omp task firstprivate(child, i, j)
        {
          ground_truth::task_started(child);
          total += i * 3 + j + (ground_truth::work(200) & 0);
        }
        ground_truth::after_task(child);
      }
#pragma omp taskyield
      total += 1;
#pragma omp taskwait
      total += 1;
    }
    ground_truth::after_task(slot);
  }
  std::printf("total %ld\n", total.load());
  ground_truth::write();
  return 0;
}
