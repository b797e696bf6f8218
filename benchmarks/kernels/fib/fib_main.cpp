// fib: task-overhead benchmark (no cutoff).
#include <string>

#include "../common/program.hpp"
#include "fib.hpp"

using namespace kernels;

namespace {

const KernelInfo kInfo{
    .name = "fib",
    .summary = "recursive Fibonacci, both calls spawned as tasks, no cutoff (task overhead)",
    .n_help = "argument: computes fib(N) with 2*fib(N+1)-2 tasks, N <= 93",
    .default_n = 30,
    .min_n = 0,
    .default_grain = 0,
    .grain_help = "",
    .extras = {},
};

Outcome run(const Options& o, KernelTimer& timer) {
  if (o.n > fib::kMaxN) throw UsageError("--n must be at most 93");
  const auto n = static_cast<unsigned>(o.n);
  std::uint64_t r = timer.measure([&] { return fib::parallel_fib(n); });
  if (o.inject_fault) r += 1;
  const std::uint64_t want = fib::iterative(n);
  return {"fib: n=" + std::to_string(n) + " result=" + std::to_string(r),
          r == want ? CheckResult::pass() : CheckResult::fail("expected " + std::to_string(want))};
}

}  // namespace

const Kernel kernels::kKernel{.info = kInfo, .run = run};
