// Recursive fib with a task per call and taskwait:
//   fib <n> <threads> [steal-first]
// steal-first: before fib, one task that the creating thread waits (without a
// task scheduling point) to see run on another thread, so that the run has at
// least one steal however the OS schedules the team (a loaded CI machine can
// leave the second thread off the CPU for all of a small fib). Given up after
// 10 s, when the task runs on its creator at the taskwait.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "ground_truth.hpp"

long fib(int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
  const long sa = ground_truth::before_task();
#pragma omp task shared(a) firstprivate(sa, n)
  {
    ground_truth::task_started(sa);
    a = fib(n - 1);
  }
  ground_truth::after_task(sa);
  const long sb = ground_truth::before_task();
#pragma omp task shared(b) firstprivate(sb, n)
  {
    ground_truth::task_started(sb);
    b = fib(n - 2);
  }
  ground_truth::after_task(sb);
#pragma omp taskwait
  return a + b;
}

void stolen_first_task() {
  std::atomic<bool> ran{false};
  const long s = ground_truth::before_task();
#pragma omp task shared(ran) firstprivate(s)
  {
    ground_truth::task_started(s);
    ran.store(true);
  }
  ground_truth::after_task(s);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!ran.load() && std::chrono::steady_clock::now() < give_up) {
  }
#pragma omp taskwait
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 18;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  const bool steal_first = argc > 3 && std::strcmp(argv[3], "steal-first") == 0;
  long r = 0;
#pragma omp parallel num_threads(threads)
#pragma omp single
  {
    if (steal_first && threads > 1) stolen_first_task();
    r = fib(n);
  }
  std::printf("fib(%d) = %ld\n", n, r);
  ground_truth::write();
  return 0;
}
