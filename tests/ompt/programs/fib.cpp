// Recursive fib with a task per call and taskwait: fib <n> <threads>.
#include <cstdio>
#include <cstdlib>

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

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 18;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  long r = 0;
#pragma omp parallel num_threads(threads)
#pragma omp single
  r = fib(n);
  std::printf("fib(%d) = %ld\n", n, r);
  ground_truth::write();
  return 0;
}
