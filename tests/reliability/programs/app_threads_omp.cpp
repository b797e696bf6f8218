// Several application threads, each entering its own OpenMP parallel regions
// (tasks, then a worksharing loop) at the same time: libomp gives each its own
// root team. Prints one deterministic line per application thread.
//
//   app_threads_omp <app-threads> <omp-threads> <fib-n>
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

long fib(int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
#pragma omp task shared(a) if (n > 8)
  a = fib(n - 1);
#pragma omp task shared(b) if (n > 8)
  b = fib(n - 2);
#pragma omp taskwait
  return a + b;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s <app-threads> <omp-threads> <fib-n>\n", argv[0]);
    return 2;
  }
  const int apps = std::atoi(argv[1]), threads = std::atoi(argv[2]), n = std::atoi(argv[3]);
  std::vector<long> fibs(static_cast<std::size_t>(apps)), sums(static_cast<std::size_t>(apps));
  std::vector<std::thread> app;
  for (int a = 0; a < apps; ++a)
    app.emplace_back([&, a] {
      long f = 0;
#pragma omp parallel num_threads(threads)
#pragma omp single
      f = fib(n - a % 3);
      long s = 0;
#pragma omp parallel for num_threads(threads) reduction(+ : s)
      for (long i = 0; i < 100000; ++i) s += (i * (a + 1)) % 7;
      fibs[static_cast<std::size_t>(a)] = f;
      sums[static_cast<std::size_t>(a)] = s;
    });
  for (auto& t : app) t.join();
  for (int a = 0; a < apps; ++a)
    std::printf("app thread %d: fib(%d) = %ld, sum = %ld\n", a, n - a % 3, fibs[static_cast<std::size_t>(a)],
                sums[static_cast<std::size_t>(a)]);
  return 0;
}
