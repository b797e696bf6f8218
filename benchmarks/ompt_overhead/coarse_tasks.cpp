// A coarse-grained task program: a few hundred tasks of about a millisecond
// each, as a well-tuned application would create. Prints a checksum and the
// timed region's wall and CPU time in seconds.
#include <cstdio>
#include <cstdlib>

#include "region_clock.hpp"

static double work(long iterations, double seed) {
  double x = seed;
  for (long i = 0; i < iterations; ++i) x = x * 1.0000001 + 1e-9;
  return x;
}

int main(int argc, char** argv) {
  const int tasks = argc > 1 ? std::atoi(argv[1]) : 200;
  const long iterations = argc > 2 ? std::atol(argv[2]) : 2'000'000;
  double sum = 0;
  warm_up_runtime();
  const double t0 = omp_get_wtime(), c0 = cpu_seconds();
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskgroup task_reduction(+ : sum)
    for (int i = 0; i < tasks; ++i) {
#pragma omp task in_reduction(+ : sum) firstprivate(i)
      sum += work(iterations, i);
    }
  }
  const double t = omp_get_wtime() - t0, c = cpu_seconds() - c0;
  std::printf("checksum %.3f time %.6f cpu %.6f\n", sum, t, c);
  return 0;
}
