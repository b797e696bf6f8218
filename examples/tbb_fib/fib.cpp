// The smallest oneTBB program under rubato: an observer for the run, and
// rubato::tbb::task_group where tbb::task_group would be.
#include <cstdio>
#include <cstdlib>

#include <rubato/tbb.hpp>

long fib(int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
  rubato::tbb::task_group g;
  g.run([&] { a = fib(n - 1); });
  g.run([&] { b = fib(n - 2); });
  g.wait();
  return a + b;
}

int main(int argc, char** argv) {
  rubato::tbb::observer attach;  // RUBATO_* settings; the report is written at exit
  const int n = argc > 1 ? std::atoi(argv[1]) : 30;
  std::printf("fib(%d) = %ld\n", n, fib(n));
}
