// fib: the task-overhead benchmark. Every call above the base case spawns
// both recursive calls as tasks and waits: no cutoff, so nearly all the time
// is task creation, scheduling and stealing (2*fib(n+1) - 2 tasks). Written
// in each runtime's own idiom: fib_omp.cpp (task / taskwait) and fib_tbb.cpp
// (task_group run / wait).
#pragma once

#include <cstdint>

namespace kernels::fib {

// Largest n whose fib(n) fits in 64 bits.
constexpr unsigned kMaxN = 93;

constexpr std::uint64_t iterative(unsigned n) noexcept {
  std::uint64_t a = 0, b = 1;
  for (unsigned i = 0; i < n; ++i) {
    const std::uint64_t next = a + b;
    a = b;
    b = next;
  }
  return a;
}

// Defined by the variant.
std::uint64_t parallel_fib(unsigned n);

}  // namespace kernels::fib
