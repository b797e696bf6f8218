// fib, OpenMP tasks: both calls spawned as tasks, then taskwait.
#include "fib.hpp"

namespace {

std::uint64_t fib_task(unsigned n) {
  if (n < 2) return n;
  std::uint64_t x = 0, y = 0;
#pragma omp task shared(x) firstprivate(n)
  x = fib_task(n - 1);
#pragma omp task shared(y) firstprivate(n)
  y = fib_task(n - 2);
#pragma omp taskwait
  return x + y;
}

}  // namespace

std::uint64_t kernels::fib::parallel_fib(unsigned n) {
  std::uint64_t r = 0;
#pragma omp parallel
#pragma omp single
  r = fib_task(n);
  return r;
}
