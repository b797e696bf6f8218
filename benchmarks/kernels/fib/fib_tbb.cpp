// fib, TBB: both calls run in a task_group, then wait.
#include "../common/tbb_api.hpp"
#include "fib.hpp"

namespace {

std::uint64_t fib_task(unsigned n) {
  if (n < 2) return n;
  std::uint64_t x = 0, y = 0;
  tbbx::task_group g;
  g.run([&] { x = fib_task(n - 1); });
  g.run([&] { y = fib_task(n - 2); });
  g.wait();
  return x + y;
}

}  // namespace

std::uint64_t kernels::fib::parallel_fib(unsigned n) { return fib_task(n); }
