// Several application threads using rubato::tbb's drop-ins at the same time
// (each in its own implicit arena), with the observer on the main thread's.
// Prints one deterministic line per application thread.
//
//   app_threads_tbb <app-threads> <fib-n>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include <rubato/tbb.hpp>

namespace {

long fib(int n) {
  if (n < 2) return n;
  if (n < 10) return fib(n - 1) + fib(n - 2);
  long a = 0, b = 0;
  rubato::tbb::task_group g;
  g.run([&] { a = fib(n - 1); });
  g.run([&] { b = fib(n - 2); });
  g.wait();
  return a + b;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s <app-threads> <fib-n>\n", argv[0]);
    return 2;
  }
  rubato::tbb::observer attach;
  const int apps = std::atoi(argv[1]), n = std::atoi(argv[2]);
  std::vector<long> fibs(static_cast<std::size_t>(apps)), sums(static_cast<std::size_t>(apps));
  std::vector<std::thread> app;
  for (int a = 0; a < apps; ++a)
    app.emplace_back([&, a] {
      fibs[static_cast<std::size_t>(a)] = fib(n - a % 3);
      std::vector<long> part(100000);
      rubato::tbb::parallel_for(0, 100000, [&](int i) { part[static_cast<std::size_t>(i)] = (long(i) * (a + 1)) % 7; });
      long s = 0;
      for (long v : part) s += v;
      sums[static_cast<std::size_t>(a)] = s;
    });
  for (auto& t : app) t.join();
  for (int a = 0; a < apps; ++a)
    std::printf("app thread %d: fib(%d) = %ld, sum = %ld\n", a, n - a % 3, fibs[static_cast<std::size_t>(a)],
                sums[static_cast<std::size_t>(a)]);
  return 0;
}
