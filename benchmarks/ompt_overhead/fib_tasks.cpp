// fib(n) with a task per call and no cutoff (fib(30): ~2.7 M tasks): the
// worst case for a per-task tool. Prints the result and the timed region's wall
// and CPU time in seconds.
#include <cstdio>
#include <cstdlib>

#include "region_clock.hpp"

static long fib(int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
#pragma omp task shared(a)
  a = fib(n - 1);
#pragma omp task shared(b)
  b = fib(n - 2);
#pragma omp taskwait
  return a + b;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 30;
  long r = 0;
  warm_up_runtime();
  const double t0 = omp_get_wtime(), c0 = cpu_seconds();
#pragma omp parallel
#pragma omp single
  r = fib(n);
  const double t = omp_get_wtime() - t0, c = cpu_seconds() - c0;
  std::printf("fib(%d)=%ld time %.6f cpu %.6f\n", n, r, t, c);
  return 0;
}
