// An unmodified oneTBB program (no rubato): fib with tbb::task_group and a
// parallel_for sum. Prints both results; exits 0 when they are right.
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_group.h>

#include <atomic>
#include <cstdio>

namespace {

long fib(int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
  tbb::task_group g;
  g.run([&] { a = fib(n - 1); });
  g.run([&] { b = fib(n - 2); });
  g.wait();
  return a + b;
}

}  // namespace

int main() {
  const long f = fib(20);
  std::atomic<long> sum{0};
  tbb::parallel_for(tbb::blocked_range<long>(0, 100000), [&](const tbb::blocked_range<long>& r) {
    long s = 0;
    for (long i = r.begin(); i < r.end(); ++i) s += i;
    sum += s;
  });
  std::printf("fib(20) = %ld, sum = %ld\n", f, sum.load());
  return f == 6765 && sum.load() == 4999950000L ? 0 : 1;
}
