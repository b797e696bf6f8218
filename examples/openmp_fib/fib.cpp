// Recursive Fibonacci with one OpenMP task per call: many small tasks, many
// steals — the program HERMES's workpath policy was designed around. Nothing
// here knows about rubato.
#include <omp.h>

#include <cstdio>
#include <cstdlib>

long fib(int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
#pragma omp task shared(a) if (n > 12)
  a = fib(n - 1);
#pragma omp task shared(b) if (n > 12)
  b = fib(n - 2);
#pragma omp taskwait
  return a + b;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 32;
  long r = 0;
  const double t0 = omp_get_wtime();
#pragma omp parallel
#pragma omp single
  r = fib(n);
  std::printf("fib(%d) = %ld in %.3f s on %d threads\n", n, r, omp_get_wtime() - t0, omp_get_max_threads());
  return 0;
}
