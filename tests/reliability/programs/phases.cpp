// Serial phases between parallel regions: the initial thread computes alone
// for a while (the pool threads wait, parked in libomp), then a region of
// task-parallel fib. The shape slack acts on: waits longer than
// the dwell between regions, and serial code that is work, not a wait. Its
// one stdout line is deterministic.
//
//   phases <rounds> <serial-ms> <fib-n>
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {

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

// Busy on the calling thread for `ms` (the result does not depend on how long).
void serial_work(int ms) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  volatile unsigned long x = 1;
  while (std::chrono::steady_clock::now() < end)
    for (int i = 0; i < 1000; ++i) x = x * 6364136223846793005ul + 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s <rounds> <serial-ms> <fib-n>\n", argv[0]);
    return 2;
  }
  const int rounds = std::atoi(argv[1]), serial_ms = std::atoi(argv[2]), n = std::atoi(argv[3]);
  long total = 0;
  for (int r = 0; r < rounds; ++r) {
    serial_work(serial_ms);
    long result = 0;
#pragma omp parallel
#pragma omp single
    result = fib(n);
    total += result;
  }
  std::printf("total = %ld\n", total);
  return 0;
}
