// Nested taskgroups whose tasks create tasks without taskwait: taskgroup <threads>.
#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "ground_truth.hpp"

std::atomic<long> total{0};

void leaf(long v) {
  const long slot = ground_truth::before_task();
#pragma omp task firstprivate(slot, v)
  {
    ground_truth::task_started(slot);
    total += v + (ground_truth::work(200) & 0);
  }
  ground_truth::after_task(slot);
}

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  long after_groups = 0;
#pragma omp parallel num_threads(threads)
#pragma omp single
  {
    for (int round = 0; round < 20; ++round) {
#pragma omp taskgroup
      {
        for (int i = 0; i < 8; ++i) {
          const long slot = ground_truth::before_task();
#pragma omp task firstprivate(slot, i)
          {
            ground_truth::task_started(slot);
#pragma omp taskgroup
            {
              for (int j = 0; j < 4; ++j) leaf(i * 10 + j);
            }
            leaf(1000);  // outlives its parent; the outer taskgroup waits for it
          }
          ground_truth::after_task(slot);
        }
      }
      after_groups += total.load();  // every descendant has finished here
    }
  }
  std::printf("total %ld checksum %ld\n", total.load(), after_groups);
  ground_truth::write();
  return 0;
}
