// Hundreds of short parallel regions in sequence: regions <count> <threads>.
#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "ground_truth.hpp"

std::atomic<long> total{0};

int main(int argc, char** argv) {
  const int regions = argc > 1 ? std::atoi(argv[1]) : 300;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  for (int r = 0; r < regions; ++r) {
#pragma omp parallel num_threads(threads)
    {
#pragma omp for
      for (int i = 0; i < 64; ++i) total += ground_truth::work(50) & 0;
#pragma omp single
      for (int i = 0; i < 6; ++i) {
        const long slot = ground_truth::before_task();
#pragma omp task firstprivate(slot, i, r)
        {
          ground_truth::task_started(slot);
          total += r + i + (ground_truth::work(100) & 0);
        }
        ground_truth::after_task(slot);
      }
    }
  }
  std::printf("total %ld\n", total.load());
  ground_truth::write();
  return 0;
}
